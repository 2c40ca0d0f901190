package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/template"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// TestTerraform drives the Terraform / OpenTofu provider (clients/terraform-provider-scs)
// with a real OpenTofu (the pinned tool hack/tools/opentofu) against the live control
// plane: plan and a create that times out (the cluster left tainted), untaint and wait
// until Ready, a clean plan, an in-place update, a change the API server refuses (at plan
// by the provider's dry run, and at apply), a change the composition function refuses, a
// destroy the deletion protection refuses, import, and the destroy. The provider is used as
// a user would: dev_overrides, KUBECONFIG, the provider built from this repository.
//
// No Gardener runs: while the test lets it, a goroutine writes the status Gardener would
// write on the cluster's Shoot whenever the Shoot's generation has not been reported.
func TestTerraform(t *testing.T) {
	needFlavour(t, flavour)
	if flavour == flavourMigration {
		t.Skip("the provider's test runs in the legacy and namespaced flavours")
	}
	tofu := newTofu(t, devOverrides)
	ctx := testContext(t)
	const name = "tf"
	t.Cleanup(func() { removeClaim(t, name) })

	hold := simulateGardener(t, name)
	hold.Store(true) // Gardener is slow at first: the create times out.

	cfg := tfConfig{Name: name, Version: "1.33", MachineType: "SCS-4V-8", Min: 1, Max: 3, CreateTimeout: "30s", DryRun: true}

	// Plan, then a create that times out: the SCSCluster stays, tracked as tainted.
	tofu.write(cfg)
	out := tofu.must(ctx, "plan")
	wantContains(t, "plan", out, "scs_cluster.tf will be created", "Plan: 1 to add")
	start := time.Now()
	out = tofu.fails(ctx, "apply", "-auto-approve")
	wantContains(t, "apply with a 30s create timeout", out, "Timed out waiting for the cluster", "SCSCluster team1/tf", "timed out after")
	if d := time.Since(start); d > 3*time.Minute {
		t.Errorf("the create took %s despite its 30s timeout", d)
	}
	getClaimOrFail(ctx, t, name)
	wantContains(t, "plan after the timeout", tofu.must(ctx, "plan"), "scs_cluster.tf is tainted, so it must be replaced")

	// Keep it, let Gardener report: the next apply waits until Ready instead of replacing.
	tofu.must(ctx, "untaint", "scs_cluster.tf")
	cfg.CreateTimeout = ""
	tofu.write(cfg)
	hold.Store(false)
	start = time.Now()
	out = tofu.must(ctx, "apply", "-auto-approve")
	measure(t, "tofu apply (untainted, simulated Gardener healthy) -> Ready", start)
	wantContains(t, "apply after untaint", out, "0 added, 1 changed, 0 destroyed")

	_, native, shoot := waitShoot(ctx, t, name)
	url := gardensim.APIServerURL(shoot)
	outputs := tofu.outputs(ctx)
	for k, want := range map[string]string{
		"phase": "Ready", "api_server_url": url, "backend_type": "gardener", "backend_name": native,
		"data_cluster_version": "1.33", "data_cluster_phase": "Ready",
	} {
		if got := fmt.Sprint(outputs[k]); got != want {
			t.Errorf("output %s = %q, want %q", k, got, want)
		}
	}
	if kc := fmt.Sprint(outputs["kubeconfig"]); !strings.Contains(kc, url) {
		t.Errorf("output kubeconfig does not point at %s: %d bytes", url, len(kc))
	}
	checkEnvironments(t, outputs["environments"])
	claim := getClaimOrFail(ctx, t, name)
	assertFields(t, claim, map[string]string{
		"spec.nodePools": fmt.Sprint([]any{map[string]any{"name": "default", "machineType": "SCS-4V-8",
			"autoscaling": map[string]any{"min": int64(1), "max": int64(3)}, "labels": map[string]any{"team": "one"}}}),
		"spec.purpose":                         "development",
		"spec.writeConnectionSecretToRef.name": name + "-kubeconfig",
	})
	if !appliedBy(claim, "terraform-provider-scs") {
		t.Errorf("claim %s has no server-side apply entry of field manager terraform-provider-scs: %v", name, claim.GetManagedFields())
	}
	tofu.noChanges(ctx, "after the create")

	// In place: scale, upgrade one minor, protect. The Shoot is updated, not replaced.
	cfg.Version, cfg.Min, cfg.Max, cfg.Protect = "1.34", 2, 6, true
	tofu.write(cfg)
	out = tofu.must(ctx, "plan")
	wantContains(t, "plan of the update", out, "scs_cluster.tf will be updated in-place", "Plan: 0 to add, 1 to change, 0 to destroy",
		// What the edit does on the backend, as kubectl scs diff says it.
		"Warning: Rolling change: control plane rolls: spec.kubernetes.version 1.33 -> 1.34")
	start = time.Now()
	tofu.must(ctx, "apply", "-auto-approve")
	measure(t, "tofu apply (scale, upgrade, protect) -> Ready", start)
	updated := waitShootMatches(ctx, t, deadline, native, "scaled to 2..6 and on 1.34", func(s *unstructured.Unstructured) bool {
		w := workers(s)["default"]
		return w["minimum"] == int64(2) && w["maximum"] == int64(6) && str(s, "spec", "kubernetes", "version") == gardenerPatch["1.34"]
	})
	if updated.GetUID() != shoot.GetUID() {
		t.Fatalf("the update replaced the Shoot: UID %s, was %s", updated.GetUID(), shoot.GetUID())
	}
	if got := fmt.Sprint(tofu.outputs(ctx)["data_cluster_version"]); got != "1.34" {
		t.Errorf("data.scs_cluster kubernetes.version = %q, want 1.34", got)
	}
	// The apply ends at Ready, while the backend may still report the upgrade (phase
	// Updating): the phase, an output, settles after it. Refreshed once it has, the state
	// has nothing left to change, and the plans below compare against a settled cluster.
	waitClaim(ctx, t, faultDeadline, name, "phase Ready after the update", fieldIs("Ready", "status", "phase"))
	tofu.must(ctx, "apply", "-refresh-only", "-auto-approve")
	tofu.noChanges(ctx, "after the update")

	// At plan, what an edit does on the backend: a new machine type rolls the pool's nodes.
	cfg.MachineType = "SCS-8V-32"
	tofu.write(cfg)
	wantContains(t, "plan of a machine type", tofu.must(ctx, "plan"),
		"Warning: Rolling change: rolls the nodes of pool default: spec.nodePools[default].machineType SCS-4V-8 -> SCS-8V-32")
	cfg.MachineType = "SCS-4V-8"
	tofu.write(cfg)

	// Refused by the API server's CEL rule: at plan, by the provider's server-side dry run,
	// and at apply when the dry run is off. Either way the diagnostic is at the attribute.
	cfg.Version = "1.36"
	tofu.write(cfg)
	out = tofu.fails(ctx, "plan")
	wantContains(t, "plan skipping a minor", out, "The Kubernetes API server refused the change",
		"attribute kubernetes.version (spec.kubernetes.version)", "one minor at a time: 1.34 to 1.36 skips a minor", `version = "1.36"`)
	cfg.DryRun = false
	tofu.write(cfg)
	out = tofu.fails(ctx, "apply", "-auto-approve")
	wantContains(t, "apply skipping a minor", out, "The Kubernetes API server refused the change",
		"attribute kubernetes.version (spec.kubernetes.version)", "one minor at a time: 1.34 to 1.36 skips a minor", `version = "1.36"`)
	if v := str(getClaimOrFail(ctx, t, name), "spec", "kubernetes", "version"); v != "1.34" {
		t.Errorf("claim version is %q after the refused change, want 1.34", v)
	}
	cfg.Version, cfg.DryRun = "1.34", true
	tofu.write(cfg)
	tofu.noChanges(ctx, "after the refused version")

	// Refused by the function: a machine type the environment does not offer. The API server
	// accepts it; the function refuses (Rendered=False, InvalidSpec) and changes nothing.
	before := shootOrFail(ctx, t, native)
	cfg.MachineType = "SCS-1V-1"
	tofu.write(cfg)
	out = tofu.fails(ctx, "apply", "-auto-approve")
	wantContains(t, "apply of an unoffered machine type", out, "The SCS cluster API refused the spec: InvalidSpec",
		"attribute node_pools[0].machine_type", `Unsupported value: "SCS-1V-1"`, `machine_type = "SCS-1V-1"`,
		"Nothing was changed in the backend")
	// The Shoot only: the Object around it is cluster-scoped in one flavour, namespaced in
	// the other.
	assertUntouched(t, before, shootOrFail(ctx, t, native))
	// Until the configuration changes, every plan says so.
	wantContains(t, "plan while refused", tofu.must(ctx, "plan"), "Warning: The SCS cluster API refused the spec: InvalidSpec")
	cfg.MachineType = "SCS-4V-8"
	tofu.write(cfg)
	tofu.must(ctx, "apply", "-auto-approve")
	rendered(ctx, t, name)
	tofu.noChanges(ctx, "after the refused machine type")

	// Destroy while protected: the admission policy refuses, in its words.
	out = tofu.fails(ctx, "destroy", "-auto-approve")
	wantContains(t, "destroy while protected", out, "Deletion refused", "has deletion protection on (spec.deletionProtection)",
		"set deletion_protection = false, apply, then destroy")
	if c := getClaimOrFail(ctx, t, name); c.GetDeletionTimestamp() != nil {
		t.Fatalf("the protected claim is being deleted")
	}

	// Import: a malformed ID is refused; namespace/name brings it back with no changes.
	tofu.must(ctx, "state", "rm", "scs_cluster.tf")
	wantContains(t, "import by name only", tofu.fails(ctx, "import", "scs_cluster.tf", name), "is not namespace/name, such as team1/dev")
	tofu.must(ctx, "import", "scs_cluster.tf", claimNamespace+"/"+name)
	tofu.noChanges(ctx, "after the import")

	// Unprotect, then destroy: the SCSCluster, and with it the Shoot, go.
	cfg.Protect = false
	tofu.write(cfg)
	tofu.must(ctx, "apply", "-auto-approve")
	start = time.Now()
	tofu.must(ctx, "destroy", "-auto-approve")
	measure(t, "tofu destroy -> SCSCluster gone", start)
	waitFor(ctx, t, deadline, "claim "+name+" deleted", gone(claims(), name))
	waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
}

// TestTerraformExample runs examples/terraform on the live control plane with the provider
// installed from a local mirror (tofu init), the other way docs/terraform.md describes:
// plan, an apply that waits until the cluster is Ready (Gardener simulated healthy), its
// outputs, a clean plan, and the destroy.
func TestTerraformExample(t *testing.T) {
	needFlavour(t, flavour)
	if flavour == flavourMigration {
		t.Skip("the provider's test runs in the legacy and namespaced flavours")
	}
	tofu := newTofu(t, localMirror)
	ctx := testContext(t)
	const name = "tofu" // the example's cluster
	t.Cleanup(func() { removeClaim(t, name) })
	simulateGardener(t, name)

	example, err := os.ReadFile(filepath.Join(repoRoot, "examples", "terraform", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tofu.dir, "main.tf"), example, 0o644); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "init from the local mirror", tofu.must(ctx, "init"),
		"Installing sovereigncloudstack/scs v0.1.0", "OpenTofu has been successfully initialized")
	wantContains(t, "plan of the example", tofu.must(ctx, "plan"),
		"scs_cluster.tofu will be created", "Plan: 1 to add, 0 to change, 0 to destroy")
	start := time.Now()
	tofu.must(ctx, "apply", "-auto-approve")
	measure(t, "tofu apply of examples/terraform (simulated Gardener healthy) -> Ready", start)

	outputs := tofu.outputs(ctx)
	if got := fmt.Sprint(outputs["phase"]); got != "Ready" {
		t.Errorf("output phase = %q, want Ready", got)
	}
	if got := fmt.Sprint(outputs["kubernetes_version"]); !strings.HasPrefix(got, "1.34") {
		t.Errorf("output kubernetes_version = %q, want 1.34.x", got)
	}
	url := fmt.Sprint(outputs["api_server_url"])
	if kc := fmt.Sprint(outputs["kubeconfig"]); url == "" || !strings.Contains(kc, url) {
		t.Errorf("output kubeconfig does not point at the api_server_url output %q: %d bytes", url, len(kc))
	}
	checkEnvironments(t, outputs["environments"])
	pools, _, _ := unstructured.NestedSlice(getClaimOrFail(ctx, t, name).Object, "spec", "nodePools")
	if len(pools) != 2 {
		t.Errorf("the example's SCSCluster has %d node pools, want 2: %v", len(pools), pools)
	}
	tofu.noChanges(ctx, "after applying the example")

	start = time.Now()
	tofu.must(ctx, "destroy", "-auto-approve")
	measure(t, "tofu destroy of examples/terraform -> SCSCluster gone", start)
	waitFor(ctx, t, deadline, "claim "+name+" deleted", gone(claims(), name))
}

// tfConfig is the configuration of one step.
type tfConfig struct {
	Name, Version, MachineType string
	Min, Max                   int
	Protect, DryRun            bool
	CreateTimeout              string
}

var tfTemplate = template.Must(template.New("main.tf").Parse(`terraform {
  required_providers {
    scs = { source = "sovereigncloudstack/scs" }
  }
}

provider "scs" {
  namespace       = "team1"
  dry_run_on_plan = {{.DryRun}}
}

resource "scs_cluster" "tf" {
  name       = "{{.Name}}"
  kubernetes = { version = "{{.Version}}" }
  node_pools = [{
    name         = "default"
    machine_type = "{{.MachineType}}"
    autoscaling  = { min = {{.Min}}, max = {{.Max}} }
    labels       = { team = "one" }
  }]
  deletion_protection            = {{.Protect}}
  write_connection_secret_to_ref = { name = "{{.Name}}-kubeconfig" }
{{- if .CreateTimeout}}
  timeouts = { create = "{{.CreateTimeout}}" }
{{- end}}
}

data "scs_cluster" "tf" {
  name       = scs_cluster.tf.name
  depends_on = [scs_cluster.tf]
}

data "scs_environments" "team1" {}

output "phase"                { value = scs_cluster.tf.status.phase }
output "api_server_url"       { value = scs_cluster.tf.status.api_server_url }
output "backend_type"         { value = scs_cluster.tf.status.backend_type }
output "backend_name"         { value = scs_cluster.tf.status.backend_name }
output "kubeconfig" {
  value     = scs_cluster.tf.kubeconfig
  sensitive = true
}
output "data_cluster_version" { value = data.scs_cluster.tf.kubernetes.version }
output "data_cluster_phase"   { value = data.scs_cluster.tf.status.phase }
output "environments"         { value = data.scs_environments.team1.environments }
`))

// tofuRunner runs tofu in a working directory of its own.
type tofuRunner struct {
	t        *testing.T
	bin, dir string
	env      []string
}

// providerInstall is how tofu finds the provider: both ways docs/terraform.md describes.
type providerInstall int

const (
	// devOverrides: a dev_overrides block names the directory of the binary; no tofu init.
	devOverrides providerInstall = iota
	// localMirror: a filesystem_mirror in the layout make terraform-provider writes, and
	// tofu init installs from it.
	localMirror
)

// providerAddress is the provider's source address, sovereigncloudstack/scs in OpenTofu.
const providerAddress = "registry.opentofu.org/sovereigncloudstack/scs"

// newTofu finds the pinned tofu (SCS_KAAS_TOOL_OPENTOFU, else the cache of
// hack/tools/build.sh), builds the provider (or takes SCS_KAAS_TERRAFORM_PROVIDER) and
// writes a CLI configuration that installs it as install says. Without tofu the test
// skips, and fails under CI=true.
func newTofu(t *testing.T, install providerInstall) *tofuRunner {
	t.Helper()
	dir := os.Getenv("SCS_KAAS_TOOL_OPENTOFU")
	if dir == "" {
		// make live builds OpenTofu beside the e2e (SCS_KAAS_E2E_BUILD_TOOLS=1): build.sh
		// then returns once that build is done (its lock), or builds it if nobody does.
		// Otherwise a missing OpenTofu is reported below, not built within a test.
		args := []string{"--dir", "opentofu"}
		if os.Getenv("SCS_KAAS_E2E_BUILD_TOOLS") == "1" {
			args = []string{"opentofu"}
		}
		cmd := exec.Command(filepath.Join(repoRoot, "hack", "tools", "build.sh"), args...)
		cmd.Stderr = os.Stderr // the build's progress, if it builds or waits
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hack/tools/build.sh %s: %v", strings.Join(args, " "), err)
		}
		dir = strings.TrimSpace(string(out))
	}
	bin := filepath.Join(dir, "tofu")
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("OpenTofu is not built (%v): run hack/tools/build.sh opentofu (about 6 min on 2 cores) or set SCS_KAAS_TOOL_OPENTOFU", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("skipped: " + msg)
	}

	plugins := t.TempDir()
	// The mirror's layout: <address>/<version>/<os>_<arch>/terraform-provider-scs_v<version>.
	const version = "0.1.0"
	target := filepath.Join(plugins, "terraform-provider-scs")
	if install == localMirror {
		target = filepath.Join(plugins, providerAddress, version, runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-scs_v"+version)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if provider := os.Getenv("SCS_KAAS_TERRAFORM_PROVIDER"); provider != "" {
		data, err := os.ReadFile(provider)
		if err != nil {
			t.Fatalf("SCS_KAAS_TERRAFORM_PROVIDER: %v", err)
		}
		if err := os.WriteFile(target, data, 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		start := time.Now()
		cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", target, ".")
		cmd.Dir = filepath.Join(repoRoot, "clients", "terraform-provider-scs")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the provider: %v\n%s", err, out)
		}
		t.Logf("built the provider in %.1fs", time.Since(start).Seconds())
	}

	work := t.TempDir()
	cli := filepath.Join(work, "tofu.rc")
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", providerAddress, plugins)
	if install == localMirror {
		rc = fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [%q]\n  }\n}\n", plugins, providerAddress)
	}
	if err := os.WriteFile(cli, []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cli, "KUBECONFIG="+cp.Kubeconfig,
		"TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")
	return &tofuRunner{t: t, bin: bin, dir: work, env: env}
}

func (r *tofuRunner) write(cfg tfConfig) {
	r.t.Helper()
	var b bytes.Buffer
	if err := tfTemplate.Execute(&b, cfg); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "main.tf"), b.Bytes(), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// run runs tofu with -no-color and logs what it printed.
func (r *tofuRunner) run(ctx context.Context, args ...string) (string, error) {
	r.t.Helper()
	switch args[0] {
	case "init", "plan", "apply", "destroy", "import":
		args = append([]string{args[0], "-no-color"}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	r.t.Logf("$ tofu %s (%.1fs, %v)\n%s", strings.Join(args, " "), time.Since(start).Seconds(), err,
		"    "+strings.ReplaceAll(strings.TrimRight(out.String(), "\n"), "\n", "\n    "))
	return out.String(), err
}

func (r *tofuRunner) must(ctx context.Context, args ...string) string {
	r.t.Helper()
	out, err := r.run(ctx, args...)
	if err != nil {
		r.t.Fatalf("tofu %s failed: %v", strings.Join(args, " "), err)
	}
	return out
}

func (r *tofuRunner) fails(ctx context.Context, args ...string) string {
	r.t.Helper()
	out, err := r.run(ctx, args...)
	if err == nil {
		r.t.Fatalf("tofu %s succeeded, want a failure", strings.Join(args, " "))
	}
	return out
}

// noChanges fails unless a plan finds nothing to do: what was applied reads back the same.
func (r *tofuRunner) noChanges(ctx context.Context, when string) {
	r.t.Helper()
	out, err := r.run(ctx, "plan", "-detailed-exitcode")
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		r.t.Fatalf("plan %s wants changes:\n%s", when, out)
	default:
		r.t.Fatalf("plan %s: %v", when, err)
	}
}

// outputs are the root module's outputs, sensitive ones included.
func (r *tofuRunner) outputs(ctx context.Context) map[string]any {
	r.t.Helper()
	cmd := exec.CommandContext(ctx, r.bin, "output", "-json")
	cmd.Dir, cmd.Env = r.dir, r.env
	data, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("tofu output -json: %v", err)
	}
	var raw map[string]struct {
		Value any `json:"value"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		r.t.Fatalf("tofu output -json: %v", err)
	}
	out := map[string]any{}
	for k, v := range raw {
		out[k] = v.Value
	}
	return out
}

var spaces = regexp.MustCompile(`\s+`)

// wantContains checks tofu's output for each string, whitespace-insensitively: tofu wraps
// diagnostics at 78 columns.
func wantContains(t *testing.T, what, out string, want ...string) {
	t.Helper()
	flat := spaces.ReplaceAllString(out, " ")
	for _, w := range want {
		if !strings.Contains(flat, spaces.ReplaceAllString(w, " ")) {
			t.Errorf("%s: output does not contain %q", what, w)
		}
	}
}

// checkEnvironments: data.scs_environments lists what the example environments offer
// team1 (admitted by name), not the one that admits only labelled namespaces.
func checkEnvironments(t *testing.T, v any) {
	t.Helper()
	envs, _ := v.([]any)
	byName := map[string]map[string]any{}
	for _, e := range envs {
		if m, ok := e.(map[string]any); ok {
			byName[fmt.Sprint(m["name"])] = m
		}
	}
	g := byName[exampleEnvironment]
	if g == nil {
		t.Fatalf("data.scs_environments has no %s: %v", exampleEnvironment, v)
	}
	if g["backend"] != "gardener" || g["default"] != true || g["source"] != "EnvironmentConfig" ||
		fmt.Sprint(g["kubernetes_versions"]) != "[1.33 1.34 1.35]" {
		t.Errorf("data.scs_environments %s = %v", exampleEnvironment, g)
	}
	if _, ok := byName["clusterstack-remote"]; ok {
		t.Errorf("data.scs_environments lists clusterstack-remote, which admits only labelled namespaces")
	}
}

// appliedBy says whether a field manager has server-side applied to obj.
func appliedBy(obj *unstructured.Unstructured, manager string) bool {
	for _, m := range obj.GetManagedFields() {
		if m.Manager == manager && m.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}

func shootOrFail(ctx context.Context, t *testing.T, native string) *unstructured.Unstructured {
	t.Helper()
	s, err := shoots().Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Shoot %s: %v", native, err)
	}
	return s
}

// simulateGardener plays Gardener for a claim's Shoot until the test ends: whenever the
// Shoot's current generation has not been reported healthy, it writes the healthy status,
// unless the returned hold is set.
func simulateGardener(t *testing.T, claimName string) *atomic.Bool {
	t.Helper()
	hold := new(atomic.Bool)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			if hold.Load() {
				continue
			}
			c, err := getClaim(ctx, claimName)
			if err != nil {
				continue
			}
			native := str(c, "status", "backend", "name")
			if native == "" {
				continue
			}
			s, err := shoots().Get(ctx, native, metav1.GetOptions{})
			if err != nil || s.GetDeletionTimestamp() != nil {
				continue
			}
			observed, _, _ := unstructured.NestedInt64(s.Object, "status", "observedGeneration")
			if observed == s.GetGeneration() && str(s, "status", "lastOperation", "state") == "Succeeded" {
				continue
			}
			if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy); err != nil && ctx.Err() == nil {
				logf("simulated Gardener: %v", err)
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return hold
}

// removeClaim deletes what a failed run left, protection off first. It waits (without
// failing) for the function to render that, so that the Shoot's own protection is released
// too; a spec the function refuses never renders, and the claim is deleted anyway.
func removeClaim(t *testing.T, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := getClaim(ctx, name); err != nil {
		return
	}
	t.Logf("removing claim %s left by the test", name)
	_, _ = claims().Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"deletionProtection":false}}`), metav1.PatchOptions{})
	err := wait.PollUntilContextTimeout(ctx, time.Second, deadline/2, true, func(ctx context.Context) (bool, error) {
		c, err := getClaim(ctx, name)
		if err != nil {
			return false, nil
		}
		return hasCondition("Synced", "True", "")(c) == nil && hasCondition("Rendered", "True", "")(c) == nil, nil
	})
	if err != nil {
		t.Logf("claim %s: protection off not rendered (%v); deleting it anyway", name, err)
	}
	if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Logf("deleting claim %s: %v", name, err)
	}
}
