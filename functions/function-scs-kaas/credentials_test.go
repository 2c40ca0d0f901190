package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	"github.com/go-logr/logr/funcr"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestCredentialsStayInSecrets: for a Ready cluster of every backend and both flavours,
// the kubeconfig its backend delivered (the whole of it, its user's token, client key or
// password) travels on only where it belongs: the composed kubeconfig Secret of a
// namespaced composite, the connection details of a legacy one. Not into any other composed
// resource, not into the composite's status, no result or condition, and no log line, at
// the highest verbosity. The function composes no other Secret but Argo CD's cluster Secret
// where an environment registers its clusters, and no ProviderConfig: it names credentials,
// it does not carry them (docs/security.md).
func TestCredentialsStayInSecrets(t *testing.T) {
	for _, c := range readyClusters(t) {
		t.Run(c.name, func(t *testing.T) {
			needles := credentialsOf(t, c)
			var logged bytes.Buffer
			fn := NewFunction(logging.NewLogrLogger(funcr.New(func(prefix, args string) {
				logged.WriteString(prefix + " " + args + "\n")
			}, funcr.Options{Verbosity: 10})))
			rsp := runWith(t, fn, c.req)

			delivered := false
			for name, r := range rsp.GetDesired().GetResources() {
				obj := r.GetResource().AsMap()
				if name == model.ResourceKubeconfigSecret {
					if obj["kind"] != "Secret" {
						t.Errorf("%s is a %v, not a Secret", name, obj["kind"])
					}
					delivered = delivered || found(t, obj, needles) != ""
					continue
				}
				if name == model.ResourceArgoCDCluster {
					// Argo CD's cluster Secret carries them by design, where the environment
					// says (a namespaced composite: its own namespace), nowhere else.
					meta := obj["metadata"].(map[string]any)
					if obj["kind"] != "Secret" || (meta["namespace"] != "argocd" && meta["namespace"] != "team1") {
						t.Errorf("%s is a %v in namespace %v, not a Secret in argocd or the team's namespace", name, obj["kind"], meta["namespace"])
					}
					continue
				}
				switch obj["kind"] {
				case "Secret", "ProviderConfig", "ClusterProviderConfig":
					t.Errorf("the function composes %s, a %v: it may compose no credentials but the kubeconfig Secret", name, obj["kind"])
				}
				if n := found(t, obj, needles); n != "" {
					t.Errorf("composed resource %s carries the credential %q", name, n)
				}
			}
			for k, v := range rsp.GetDesired().GetComposite().GetConnectionDetails() {
				delivered = delivered || (k == model.ConnectionKeyKubeconfig && strings.Contains(string(v), needles[0]))
			}
			if !delivered {
				t.Fatalf("the kubeconfig was delivered nowhere: nothing to follow (needles %q)", needles)
			}
			for what, v := range map[string]any{
				"the composite (its status)": rsp.GetDesired().GetComposite().GetResource().AsMap(),
				"the results":                rsp.GetResults(),
				"the conditions":             rsp.GetConditions(),
				"the context":                rsp.GetContext().AsMap(),
			} {
				if n := found(t, v, needles); n != "" {
					t.Errorf("%s carries the credential %q", what, n)
				}
			}
			for _, n := range needles {
				if strings.Contains(logged.String(), n) {
					t.Errorf("the log carries the credential %q", n)
				}
			}
		})
	}
}

// credentialsOf are the strings of the kubeconfig a Ready cluster's backend delivered, as
// they could leak: the user's token, client key or password (as written and decoded), the
// whole kubeconfig and its base64. The first is the kubeconfig's token or key.
func credentialsOf(t *testing.T, c readyCluster) []string {
	t.Helper()
	var kubeconfig []byte
	if c.kubeconfigFrom != "" {
		details := c.req.GetObserved().GetResources()[c.kubeconfigFrom].GetConnectionDetails()
		for _, k := range []string{"kubeconfig", "value", "attribute.kubeconfig.raw_config"} {
			if v, ok := details[k]; ok {
				kubeconfig = v
			}
		}
	} else {
		for _, r := range c.req.GetRequiredResources()[c.kubeconfigRequired].GetItems() {
			data, _ := r.GetResource().AsMap()["data"].(map[string]any)
			if v, ok := data["value"].(string); ok {
				raw, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					t.Fatal(err)
				}
				kubeconfig = raw
			}
		}
	}
	if len(kubeconfig) == 0 {
		t.Fatalf("%s: no kubeconfig in the request", c.name)
	}
	var cfg struct {
		Users []struct {
			User map[string]string `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(kubeconfig, &cfg); err != nil {
		t.Fatalf("%s: the kubeconfig: %v", c.name, err)
	}
	var out []string
	for _, u := range cfg.Users {
		for _, k := range []string{"token", "client-key-data", "password"} {
			v := u.User[k]
			if v == "" {
				continue
			}
			out = append(out, v)
			// A decoded key this short is a word of the examples, not a secret.
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil && len(raw) >= 16 {
				out = append(out, string(raw))
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: the kubeconfig has no user credential", c.name)
	}
	return append(out, string(kubeconfig), base64.StdEncoding.EncodeToString(kubeconfig))
}

// found returns the first needle in v as JSON, or "".
func found(t *testing.T, v any, needles []string) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range needles {
		if bytes.Contains(data, []byte(n)) {
			return n
		}
	}
	return ""
}
