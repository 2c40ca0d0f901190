package provider

// What an update does on the cluster's backend, in tofu plan: the same effects kubectl scs
// diff prints, from the backend's capability declaration (model.Edits).

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
)

// planEffects says what changing prior into planned does on the backend: a warning on the
// attribute for a rolling replacement of nodes, a control-plane rollout or a change the
// backend does not honour, and an error for a change the backend refuses outright (a set
// value changed into another). A field set for the first time may only make explicit what
// the environment defaulted, which the function accepts: that is a warning, not an error.
// An unknown backend (the cluster not created yet) says nothing.
func planEffects(backend string, prior, planned map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	b, err := all.Registry().For(kaasv1alpha1.BackendType(backend))
	if err != nil {
		return diags
	}
	var cur, next kaasv1alpha1.ClusterSpec
	if decodeSpec(prior, &cur) != nil || decodeSpec(planned, &next) != nil {
		return diags // the API server's dry run and the apply report what does not decode
	}
	for _, e := range model.Edits(b.Capabilities(), &cur, &next) {
		at, ok := attributePath(e.Path, poolNames(planned))
		if !ok {
			at = path.Root("node_pools")
		}
		detail := fmt.Sprintf("On %s: %s.", b.Capabilities().Title, e.Note)
		switch e.Effect {
		case model.EffectRollsNodes, model.EffectRollsControlPlane:
			diags.AddAttributeWarning(at, "Rolling change: "+e.Summary(), detail)
		case model.EffectNotHonoured:
			diags.AddAttributeWarning(at, "Not honoured: "+e.Path, detail)
		case model.EffectRefused:
			if e.From != "" && e.To != "" {
				diags.AddAttributeError(at, "Refused by the backend: "+e.Path+" cannot change", detail+" The cluster would keep running as it is, and the apply would fail.")
			} else {
				diags.AddAttributeWarning(at, "May be refused: "+e.Path, detail+" Accepted only when it names what the cluster has already.")
			}
		}
	}
	return diags
}

func decodeSpec(spec map[string]any, into *kaasv1alpha1.ClusterSpec) error {
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}
