package main

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// TestBuiltBinaryValidatesOffline runs kubectl-scs as a GitOps pipeline does: the built
// binary alone, from an empty directory, with no kubeconfig and no checkout around it. It
// renders every example with --validate, which must check every object and find each
// valid; then it breaks one object of every kind it saw on purpose, and kubectl scs
// validate must refuse each, naming the field.
func TestBuiltBinaryValidatesOffline(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	k := newBinary(t)
	envs := filepath.Join(repo, "examples", "environments")
	releases := filepath.Join(repo, "examples", "render", "clusterstack", "required")

	// One object of every kind seen, to break below: the inputs, what render prints, and
	// the further objects render reads.
	seen := map[schema.GroupVersionKind]*unstructured.Unstructured{}
	remember := func(objs ...*unstructured.Unstructured) {
		for _, o := range objs {
			if _, ok := seen[o.GroupVersionKind()]; !ok {
				seen[o.GroupVersionKind()] = o
			}
		}
	}

	var renders [][]string
	claims, _ := filepath.Glob(filepath.Join(repo, "examples", "claims", "*.yaml"))
	for _, c := range claims {
		for _, flavour := range []string{"namespaced", "legacy"} {
			renders = append(renders, []string{"-f", c, "--flavour", flavour, "--environment", envs, "--required", releases})
		}
	}
	composites, _ := filepath.Glob(filepath.Join(repo, "examples", "render", "*", "xr.yaml"))
	for _, xr := range composites {
		dir := filepath.Dir(xr)
		args := []string{"-f", xr, "--environment", envs}
		if filepath.Base(dir) == "clusterstack" {
			args = append(args, "--required", releases)
		}
		renders = append(renders, args)
		observed, _ := filepath.Glob(filepath.Join(dir, "observed-*.yaml"))
		for _, o := range observed {
			renders = append(renders, append(append([]string(nil), args...), "--observed", o, "--required", filepath.Join(dir, "required-ready")))
		}
	}
	if len(claims) < 4 || len(composites) < 3 {
		t.Fatalf("found %d example claims and %d example composites; the examples moved", len(claims), len(composites))
	}

	renderValid := func(t *testing.T, args []string) []*unstructured.Unstructured {
		t.Helper()
		stdout, stderr, code := k.run(t, "", append(append([]string{"render"}, args...), "--validate")...)
		if code != 0 {
			t.Fatalf("exit code %d, want 0; stderr:\n%s", code, stderr)
		}
		checked := 0
		for _, line := range reportLines(stderr) {
			if !strings.HasPrefix(line, "  valid ") {
				t.Errorf("not valid: %s", line)
			}
			checked++
		}
		objs := decode(t, stdout)
		// The input, every rendered object, and the Shoot inside a Gardener Object.
		if want := 1 + len(objs) + strings.Count(stdout, "kind: Shoot\n"); checked != want {
			t.Errorf("%d objects reported, want %d; stderr:\n%s", checked, want, stderr)
		}
		remember(readObjects(t, args[1])...)
		for _, o := range objs {
			// render prints a Secret's values as their SHA-256, which are no base64: the
			// Secrets to break come from the examples' --required files.
			if o.GetKind() != "Secret" {
				remember(o)
			}
		}
		return objs
	}
	for _, args := range renders {
		name := strings.ReplaceAll(strings.Join(args, " "), repo+"/", "")
		t.Run("render "+name, func(t *testing.T) {
			objs := renderValid(t, args)
			// A namespaced cluster once its backend has answered: the examples' observed
			// state is the legacy flavour's, so its status is carried over to the objects
			// just rendered, by composition resource name. Magnum's node groups and
			// Gardener's kubeconfig come only then.
			if args[3] != "namespaced" {
				return
			}
			backend := strings.SplitN(filepath.Base(args[1]), "-", 2)[0]
			observed := observedAs(t, objs, filepath.Join(repo, "examples", "render", backend, "observed-ready.yaml"))
			renderValid(t, append(append([]string(nil), args...), "--observed", observed))
		})
	}
	for _, dir := range []string{releases, filepath.Join(repo, "examples", "render", "gardener", "required-ready")} {
		stdout, stderr, code := k.run(t, "", "validate", "--strict", "-f", dir)
		if code != 0 || stdout != "" {
			t.Fatalf("validate %s: exit code %d, want 0; stderr:\n%s", dir, code, stderr)
		}
		remember(readObjects(t, dir)...)
	}

	for gk := range breakages {
		found := false
		for gvk := range seen {
			found = found || gvk.GroupKind() == gk
		}
		if !found {
			t.Errorf("no example renders or reads a %s to break", gk)
		}
	}
	for gvk, obj := range seen {
		b, ok := breakages[gvk.GroupKind()]
		if !ok {
			t.Errorf("%s: no object of this kind is broken on purpose below; add one to breakages", gvk)
			continue
		}
		t.Run("refuses a broken "+gvk.Kind+"."+gvk.Group, func(t *testing.T) {
			broken := obj.DeepCopy()
			b.edit(t, broken.Object)
			data, err := yaml.Marshal(broken.Object)
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, code := k.run(t, string(data), "validate", "-f", "-")
			if code != 3 {
				t.Errorf("exit code %d, want 3 (refused); stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "  INVALID      "+b.invalidKind+" ") || !strings.Contains(stderr, b.field) {
				t.Errorf("want %s refused naming %s; stderr:\n%s", b.invalidKind, b.field, stderr)
			}
		})
	}
}

// observedAs writes the rendered objects, each with the status of the object of the same
// composition resource name in an example of observed state, to a file of --observed.
func observedAs(t *testing.T, rendered []*unstructured.Unstructured, example string) string {
	t.Helper()
	status := map[string]any{}
	for _, o := range readObjects(t, example) {
		status[o.GetAnnotations()["crossplane.io/composition-resource-name"]] = o.Object["status"]
	}
	var stream []string
	for _, o := range rendered {
		s, ok := status[o.GetAnnotations()["crossplane.io/composition-resource-name"]]
		if !ok {
			continue
		}
		o = o.DeepCopy()
		o.Object["status"] = runtime.DeepCopyJSONValue(s)
		// A provider-kubernetes Object reports the object it manages: this cluster's,
		// with the example's status.
		if m, ok, _ := unstructured.NestedMap(o.Object, "spec", "forProvider", "manifest"); ok {
			if ms, ok, _ := unstructured.NestedMap(o.Object, "status", "atProvider", "manifest", "status"); ok {
				m["status"] = ms
			}
			set(m, "status", "atProvider", "manifest")(t, o.Object)
		}
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, string(data))
	}
	if len(stream) == 0 {
		t.Fatalf("nothing rendered has a status in %s", example)
	}
	file := filepath.Join(t.TempDir(), "observed.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(stream, "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// breakage is a mistake in one kind and what validate must say about it: which object is
// invalid (a Shoot is refused inside its Object) and the field named.
type breakage struct {
	edit        func(t *testing.T, obj map[string]any)
	invalidKind string
	field       string
}

var breakages = map[schema.GroupKind]breakage{
	{Group: "kaas.scs.community", Kind: "SCSCluster"}: {
		// Only a CEL rule of the XRD catches overlapping ranges.
		edit:        set(map[string]any{"podCIDR": "100.64.0.0/12", "serviceCIDR": "100.64.0.0/13"}, "spec", "network"),
		invalidKind: "SCSCluster", field: "spec.network.serviceCIDR: Invalid value: spec.network.podCIDR and spec.network.serviceCIDR must not overlap",
	},
	{Group: "kaas.scs.community", Kind: "XSCSCluster"}: {
		edit:        set("latest", "spec", "kubernetes", "version"),
		invalidKind: "XSCSCluster", field: "spec.kubernetes.version: Invalid value: \"latest\"",
	},
	{Group: "kubernetes.crossplane.io", Kind: "Object"}: {
		edit:        set("Eventually", "spec", "readiness", "policy"),
		invalidKind: "Object", field: "spec.readiness.policy: Unsupported value: \"Eventually\"",
	},
	{Group: "kubernetes.m.crossplane.io", Kind: "Object"}: {
		// Gardener's own validation: a pool's maximum below its minimum.
		edit: func(t *testing.T, obj map[string]any) {
			workers, _, _ := unstructured.NestedSlice(obj, "spec", "forProvider", "manifest", "spec", "provider", "workers")
			if len(workers) == 0 {
				t.Fatal("the Object wraps no Shoot with workers")
			}
			workers[0].(map[string]any)["maximum"] = int64(0)
			set(workers, "spec", "forProvider", "manifest", "spec", "provider", "workers")(t, obj)
		},
		invalidKind: "Shoot", field: "spec.provider.workers[0].maximum: Forbidden: maximum value must not be less than minimum value",
	},
	{Group: "cluster.x-k8s.io", Kind: "Cluster"}: {
		edit: func(t *testing.T, obj map[string]any) {
			mds, _, _ := unstructured.NestedSlice(obj, "spec", "topology", "workers", "machineDeployments")
			if len(mds) == 0 {
				t.Fatal("the Cluster has no MachineDeployments")
			}
			set(append(mds, runtime.DeepCopyJSONValue(mds[0])), "spec", "topology", "workers", "machineDeployments")(t, obj)
		},
		invalidKind: "Cluster", field: "spec.topology.workers.machineDeployments[",
	},
	{Group: "containerinfra.openstack.crossplane.io", Kind: "ClusterV1"}: {
		edit:        set("three", "spec", "forProvider", "masterCount"),
		invalidKind: "ClusterV1", field: "spec.forProvider.masterCount: Invalid value: \"string\"",
	},
	{Group: "containerinfra.openstack.crossplane.io", Kind: "NodegroupV1"}: {
		edit:        set("three", "spec", "forProvider", "nodeCount"),
		invalidKind: "NodegroupV1", field: "spec.forProvider.nodeCount: Invalid value: \"string\"",
	},
	{Group: "gardener.kaas.scs.community", Kind: "AdminKubeconfig"}: {
		edit:        set(int64(60), "spec", "forProvider", "expirationSeconds"),
		invalidKind: "AdminKubeconfig", field: "spec.forProvider.expirationSeconds: Invalid value: 60",
	},
	{Group: "clusterstack.x-k8s.io", Kind: "ClusterStackRelease"}: {
		edit:        set("openstack_scs2", "metadata", "name"),
		invalidKind: "ClusterStackRelease", field: "metadata.name: Invalid value: \"openstack_scs2\"",
	},
	{Group: "", Kind: "Secret"}: {
		edit:        set(map[string]any{"kube config": "c2VjcmV0"}, "data"),
		invalidKind: "Secret", field: "data[kube config]: Invalid value: \"kube config\"",
	},
}

// The namespaced flavour's kinds of provider-openstack and the kubeconfig provider are the
// legacy ones in groups of their own: broken the same way.
func init() {
	twins := map[schema.GroupKind]breakage{}
	for gk, b := range breakages {
		switch gk.Group {
		case "containerinfra.openstack.crossplane.io":
			twins[schema.GroupKind{Group: "containerinfra.openstack.m.crossplane.io", Kind: gk.Kind}] = b
		case "gardener.kaas.scs.community":
			twins[schema.GroupKind{Group: "gardener.m.kaas.scs.community", Kind: gk.Kind}] = b
		}
	}
	maps.Copy(breakages, twins)
}

func set(value any, path ...string) func(t *testing.T, obj map[string]any) {
	return func(t *testing.T, obj map[string]any) {
		t.Helper()
		if err := unstructured.SetNestedField(obj, runtime.DeepCopyJSONValue(value), path...); err != nil {
			t.Fatal(err)
		}
	}
}

// reportLines are the per-object lines of a validation report on standard error.
func reportLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		for _, p := range []string{"  valid ", "  INVALID ", "  not checked "} {
			if strings.HasPrefix(line, p) {
				out = append(out, line)
			}
		}
	}
	return out
}

// binary is kubectl-scs, built as released, and an empty directory to run it in.
type binary struct {
	path, dir string
}

func newBinary(t *testing.T) *binary {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubectl-scs")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	// As make cli builds the released binaries: static, no C toolchain.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-scs: %v\n%s", err, out)
	}
	return &binary{path: bin, dir: t.TempDir()}
}

// run runs the binary in its empty directory, with an empty home and no kubeconfig.
func (b *binary) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(b.path, args...)
	cmd.Dir = b.dir
	cmd.Env = []string{"HOME=" + b.dir, "PATH=/usr/bin:/bin", "KUBECONFIG=" + filepath.Join(b.dir, "no-kubeconfig")}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(b.dir)
	for _, e := range entries {
		t.Errorf("kubectl-scs %s left %s in its working directory", args[0], e.Name())
	}
	return out.String(), errOut.String(), code
}

func decode(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatal(err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

func readObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	files := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.yaml"))
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f) //nolint:gosec // G304: an example of this repository
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, string(data))...)
	}
	return out
}
