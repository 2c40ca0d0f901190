package model

import (
	"encoding/base64"
	"maps"
	"slices"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// connectionKeys are the keys of the kubeconfig contract (docs/kubeconfig.md).
var connectionKeys = []string{ConnectionKeyKubeconfig, ConnectionKeyEndpoint, ConnectionKeyCA}

// Delivered are the connection details the cluster's users hold now: the data of the
// namespaced composite's kubeconfig Secret as observed, or the legacy composite's
// connection details (Input.ConnectionDetails), keys of the kubeconfig contract only.
func Delivered(in Input) map[string][]byte {
	out := map[string][]byte{}
	if s := in.Observed[ResourceKubeconfigSecret].Object; s != nil {
		data, _ := s.Object["data"].(map[string]any)
		for _, k := range connectionKeys {
			enc, _ := data[k].(string)
			if b, err := base64.StdEncoding.DecodeString(enc); err == nil && len(b) > 0 {
				out[k] = b
			}
		}
	}
	for _, k := range connectionKeys {
		if v := in.ConnectionDetails[k]; len(v) > 0 {
			out[k] = v
		}
	}
	return out
}

// keepDelivered makes what was delivered the memory of the connection details: an
// observation without a kubeconfig (a provider restarting, an Object not reported yet, a
// Secret not read, a provider's connection secret missing) does not take back the one
// users hold, and a new delivery replaces the keys it brings and keeps the others. Crossplane
// applies the composed kubeconfig Secret with server-side apply, so a key left out of it
// would be removed from every consumer.
//
// While the kubeconfig is kept only from memory, KubeconfigReady says so (Stale), unless
// the backend knows it no longer works (Expired, RenewalFailing): never Delivered with
// nothing delivered now.
func keepDelivered(obs *Observation, delivered map[string][]byte) *Observation {
	if len(delivered) == 0 {
		return obs
	}
	out := *obs
	out.ConnectionDetails = maps.Clone(delivered)
	maps.Copy(out.ConnectionDetails, obs.ConnectionDetails)
	if len(obs.ConnectionDetails[ConnectionKeyKubeconfig]) > 0 || len(delivered[ConnectionKeyKubeconfig]) == 0 {
		return &out
	}
	stale := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonKubeconfigStale,
		Message: "the connection secret keeps the kubeconfig delivered earlier: the backend shows none now"}
	out.Conditions = slices.Clone(obs.Conditions)
	i := slices.IndexFunc(out.Conditions, func(c Condition) bool { return c.Type == kaasv1alpha1.ConditionKubeconfigReady })
	switch {
	case i < 0:
		out.Conditions = append(out.Conditions, stale)
	case out.Conditions[i].Reason == kaasv1alpha1.ReasonKubeconfigExpired || out.Conditions[i].Reason == kaasv1alpha1.ReasonKubeconfigRenewalFailing:
		// The backend knows more: the kubeconfig users hold does not work.
	default:
		stale.Message = Truncate(stale.Message + " (" + out.Conditions[i].Message + ")")
		out.Conditions[i] = stale
	}
	return &out
}
