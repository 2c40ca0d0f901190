package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The examples are the test fixtures: what users copy must work.
const (
	exampleEnvironment   = "../../examples/environments/gardener-regionone.yaml"
	exampleEnvironments  = "../../examples/environments"
	exampleXR            = "../../examples/render/gardener/xr.yaml"
	exampleObservedReady = "../../examples/render/gardener/observed-ready.yaml"
	exampleObservedQuota = "../../examples/render/gardener/observed-quota-exceeded.yaml"
	exampleKubeconfig    = "../../examples/render/gardener/required-ready/kubeconfig-secret.yaml"

	exampleCAPIXR             = "../../examples/render/clusterstack/xr.yaml"
	exampleCAPIReleases       = "../../examples/render/clusterstack/required/releases.yaml"
	exampleCAPIKubeconfig     = "../../examples/render/clusterstack/required-ready/kubeconfig.yaml"
	exampleCAPIObservedReady  = "../../examples/render/clusterstack/observed-ready.yaml"
	exampleCAPIObservedFailed = "../../examples/render/clusterstack/observed-unavailable.yaml"

	exampleMagnumXR              = "../../examples/render/magnum/xr.yaml"
	exampleMagnumObservedCreated = "../../examples/render/magnum/observed-cluster-created.yaml"
	exampleMagnumObservedReady   = "../../examples/render/magnum/observed-ready.yaml"
	exampleMagnumObservedQuota   = "../../examples/render/magnum/observed-quota-exceeded.yaml"
	exampleMagnumSecret          = "../../examples/render/magnum/required-ready/connection-secret.yaml"
)

// exampleNamespace is the namespace of the example claims, with the label that
// examples/environments/clusterstack-remote.yaml admits.
var exampleNamespace = map[string]any{"apiVersion": "v1", "kind": "Namespace",
	"metadata": map[string]any{"name": "team1", "labels": map[string]any{"kaas.scs.community/clusterstack-remote": "true"}}}

// withConnectionSecret gives an observed composed resource the connection details of a
// Secret, as Crossplane reads them from the resource's connection secret.
func withConnectionSecret(t testing.TB, req *fnv1.RunFunctionRequest, resource, secretFile string) *fnv1.RunFunctionRequest {
	t.Helper()
	secret := readObject(t, secretFile)
	details := map[string][]byte{}
	for k, v := range secret["data"].(map[string]any) {
		b, err := base64.StdEncoding.DecodeString(v.(string))
		if err != nil {
			t.Fatalf("%s: %s is not base64: %v", secretFile, k, err)
		}
		details[k] = b
	}
	r, ok := req.GetObserved().GetResources()[resource]
	if !ok {
		t.Fatalf("the request observes no %s", resource)
	}
	r.ConnectionDetails = details
	return req
}

// readDir reads every YAML document of every file in a directory.
func readDir(t testing.TB, dir string) []map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no YAML files in %s: %v", dir, err)
	}
	var out []map[string]any
	for _, f := range files {
		out = append(out, readObjects(t, f)...)
	}
	return out
}

// withRequired adds what a backend's requirements fetched, as Crossplane would.
func withRequired(t testing.TB, req *fnv1.RunFunctionRequest, name string, objs []map[string]any) *fnv1.RunFunctionRequest {
	t.Helper()
	items := make([]*fnv1.Resource, 0, len(objs))
	for _, o := range objs {
		items = append(items, &fnv1.Resource{Resource: mustStruct(t, o)})
	}
	req.RequiredResources[name] = &fnv1.Resources{Items: items}
	return req
}

// readObjects reads every YAML document of a file.
func readObjects(t testing.TB, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s: %v", path, err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []map[string]any
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("cannot decode %s: %v", path, err)
		}
		if len(obj) > 0 {
			out = append(out, obj)
		}
	}
}

func readObject(t testing.TB, path string) map[string]any {
	t.Helper()
	objs := readObjects(t, path)
	if len(objs) != 1 {
		t.Fatalf("%s: want one object, got %d", path, len(objs))
	}
	return objs[0]
}

func mustStruct(t testing.TB, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatalf("cannot convert to a protobuf Struct: %v", err)
	}
	return s
}

// requestFor builds the request Crossplane sends once the environments are fetched:
// observed composed resources are keyed by their composition resource name annotation, as
// Crossplane keys them.
func requestFor(t testing.TB, xr map[string]any, environments []map[string]any, observed ...map[string]any) *fnv1.RunFunctionRequest {
	t.Helper()
	req := &fnv1.RunFunctionRequest{
		Meta:     &fnv1.RequestMeta{Tag: "test"},
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: mustStruct(t, xr)}},
	}
	if environments != nil {
		items := make([]*fnv1.Resource, 0, len(environments))
		for _, e := range environments {
			items = append(items, &fnv1.Resource{Resource: mustStruct(t, e)})
		}
		req.RequiredResources = map[string]*fnv1.Resources{"environments": {Items: items}}
		// The claim's namespace, which Crossplane reads once an environment admits
		// namespaces by label (examples/environments/clusterstack-remote.yaml).
		req.RequiredResources["namespace"] = &fnv1.Resources{Items: []*fnv1.Resource{{Resource: mustStruct(t, exampleNamespace)}}}
	}
	if len(observed) > 0 {
		req.Observed.Resources = map[string]*fnv1.Resource{}
		for _, o := range observed {
			name := o["metadata"].(map[string]any)["annotations"].(map[string]any)["crossplane.io/composition-resource-name"].(string)
			req.Observed.Resources[name] = &fnv1.Resource{Resource: mustStruct(t, o)}
		}
	}
	return req
}

// deepCopy copies a JSON-like object so that a test case can change it.
func deepCopy(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return deepCopy(v)
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = copyValue(v[i])
		}
		return out
	default:
		return v
	}
}
