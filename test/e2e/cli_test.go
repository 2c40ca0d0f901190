package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// Exit codes of kubectl-scs (clients/kubectl-scs/internal/cli/exitcode.go).
const (
	cliExitError    = 1
	cliExitRefused  = 3
	cliExitNotReady = 4
)

// TestCLI drives the kubectl-scs binary, built from clients/kubectl-scs, against the live
// control plane as a team would, with --kubeconfig and -n: render offline, create, wait
// (while the simulated Gardener first reports a quota error, then success), get and
// describe, kubeconfig (printed and merged), scale, upgrade (one refused before it is
// sent), environments and versions, delete refused by the deletion protection, and delete.
// It runs in the legacy and the namespaced flavour; the commands are the same in both.
func TestCLI(t *testing.T) {
	needFlavour(t, flavour)
	if flavour == flavourMigration {
		t.Skip("the CLI's test runs in the legacy and namespaced flavours")
	}
	cli := newCLI(t)
	ctx := testContext(t)
	const name = "cli"
	secretName := name + "-kubeconfig"
	t.Cleanup(func() { removeCLIClaim(t, name) })

	manifest := func(version string, minNodes, maxNodes int64, protect bool) string {
		spec := smallSpec(version, minNodes, maxNodes)
		spec["writeConnectionSecretToRef"] = map[string]any{"name": secretName}
		if protect {
			spec["deletionProtection"] = true
		}
		data, err := yaml.Marshal(newClaimIn("", name, spec).Object)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	file := manifest("1.33", 1, 3, false)

	// Offline, as a CI job checks a manifest: no kubeconfig, no API server.
	r := cli.offline(ctx, "render", "-f", file, "--environment", filepath.Join(repoRoot, "examples", "environments"), "-n", claimNamespace, "-o", "name", "--validate")
	r.want(t, 0, "object.kubernetes", "Rendered SCSCluster team1/cli", "valid        SCSCluster team1/cli")

	start := time.Now()
	cli.run(ctx, "create", "-f", file).wantStdout(t, 0, "scscluster.kaas.scs.community/cli created\n")
	cli.run(ctx, "create", "-f", file).want(t, cliExitError, "already exists: apply changes it")
	_, native, shoot := waitShoot(ctx, t, name)
	measure(t, "kubectl-scs create -> Shoot", start)
	cli.run(ctx, "wait", name, "--for=ready", "--timeout=3s").want(t, cliExitNotReady, "is not ready after 3s")

	// wait prints the backend's progress: Gardener's quota error, then Ready.
	start = time.Now()
	w := cli.start(ctx, "wait", name, "--for=ready", "--timeout=5m")
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.QuotaExceeded); err != nil {
		t.Fatal(err)
	}
	w.waitLine(t, "BackendReady False ("+gardensim.QuotaErrorCode+")")
	healthy, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy)
	if err != nil {
		t.Fatal(err)
	}
	url := gardensim.APIServerURL(healthy)
	w.finish(t).wantStdout(t, 0, "scscluster.kaas.scs.community/cli condition met\n")
	measure(t, "simulated Gardener success -> kubectl-scs wait returns", start)

	got := cli.run(ctx, "get", name, "-o", "wide")
	got.want(t, 0, "gardener-regionone", "Ready", url, native)
	// The columns of kubectl get, as the API server computes them for the flavour's CRD.
	kubectl := exec.CommandContext(ctx, env.Tools().Kubectl(), "get", "scsclusters.kaas.scs.community", name, "-o", "wide",
		"-n", claimNamespace, "--kubeconfig", cp.Kubeconfig)
	want, err := kubectl.Output()
	if err != nil {
		t.Fatalf("kubectl get scsclusters: %v", err)
	}
	if diff := cmp.Diff(withoutAge(string(want)), withoutAge(got.stdout)); diff != "" {
		t.Errorf("kubectl-scs get -o wide differs from kubectl get (-kubectl +kubectl-scs):\n%s", diff)
	}
	cli.run(ctx, "describe", name).want(t, 0, "BackendReady", "Healthy", "Shoot "+gardenNamespace+"/"+native, "Composed resources:")

	// The kubeconfig, printed (never logged) and merged into a file of its own.
	kc := cli.secret(ctx, "kubeconfig", name)
	kc.want(t, 0)
	cfg, err := clientcmd.Load([]byte(kc.stdout))
	if err != nil {
		t.Fatalf("kubectl-scs kubeconfig printed no kubeconfig (%d bytes): %v", len(kc.stdout), err)
	}
	pointsAt := false
	for _, c := range cfg.Clusters {
		pointsAt = pointsAt || c.Server == url
	}
	if !pointsAt {
		t.Errorf("the printed kubeconfig does not point at %s", url)
	}
	// Relative to the working directory, as a user would name it.
	cli.run(ctx, "kubeconfig", name, "--merge", "--kubeconfig-file", "scs.kubeconfig").
		wantStdout(t, 0, fmt.Sprintf("Context %q (%s) merged into scs.kubeconfig; use it with: kubectl --context %s ...\n", name, url, name))
	merged := filepath.Join(cli.home, "scs.kubeconfig")
	mc, err := clientcmd.LoadFromFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if mc.Contexts[name] == nil || mc.Clusters[name] == nil || mc.Clusters[name].Server != url || mc.AuthInfos[name] == nil {
		t.Errorf("the merged file has no context %s on %s", name, url)
	}
	if info, err := os.Stat(merged); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the merged kubeconfig is not private (mode 0600): %v %v", info, err)
	}
	// The merge touched no other kubeconfig: the CLI's HOME has none.
	if _, err := os.Stat(filepath.Join(cli.home, ".kube", "config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("kubectl-scs wrote ~/.kube/config: %v", err)
	}

	// Scale: the Shoot's worker pool follows, in place.
	cli.run(ctx, "scale", name, "default", "--min", "2", "--max", "5").
		wantStdout(t, 0, "scscluster.kaas.scs.community/cli scaled: pool default autoscaling 1-3 -> autoscaling 2-5\n")
	waitShootMatches(ctx, t, deadline, native, "worker pool default scaled to 2..5", func(s *unstructured.Unstructured) bool {
		w := workers(s)["default"]
		return w["minimum"] == int64(2) && w["maximum"] == int64(5)
	})

	// Upgrade: a skipped minor is refused before anything is sent; the next minor goes.
	cli.run(ctx, "upgrade", name, "--to", "1.35").want(t, cliExitRefused, "can move one minor at a time", "so the next is 1.34, not 1.35")
	if v := str(getClaimOrFail(ctx, t, name), "spec", "kubernetes", "version"); v != "1.33" {
		t.Errorf("spec.kubernetes.version is %q after the refused upgrade, want 1.33", v)
	}
	cli.run(ctx, "upgrade", name, "--to", "1.34").want(t, 0, "scscluster.kaas.scs.community/cli upgrading: spec.kubernetes.version 1.33 -> 1.34")
	updated := waitShootMatches(ctx, t, deadline, native, "on Kubernetes 1.34", func(s *unstructured.Unstructured) bool {
		return str(s, "spec", "kubernetes", "version") == gardenerPatch["1.34"]
	})
	if updated.GetUID() != shoot.GetUID() {
		t.Fatalf("scale and upgrade replaced the Shoot: UID %s, was %s", updated.GetUID(), shoot.GetUID())
	}

	// What team1 may use: the environments that admit it by name, not the one for labelled
	// namespaces.
	envs := cli.run(ctx, "environments")
	envs.want(t, 0, "gardener-regionone", "clusterstack-regionone", "magnum-regionone")
	if strings.Contains(envs.stdout, "clusterstack-remote") {
		t.Errorf("kubectl-scs environments lists clusterstack-remote, which admits only labelled namespaces")
	}
	cli.run(ctx, "versions").want(t, 0, "gardener-regionone", "1.33, 1.34, 1.35", "cli ")

	// Protected: delete is refused by the admission policy, and says how to release it.
	cli.run(ctx, "apply", "-f", manifest("1.34", 2, 5, true)).wantStdout(t, 0, "scscluster.kaas.scs.community/cli serverside-applied\n")
	waitFor(ctx, t, deadline, "the Shoot's Object kept on deletion", shootObjectDeletes(native, false))
	waitFor(ctx, t, deadline, "kubectl-scs delete --dry-run=server refused by the deletion-protection policy", func(ctx context.Context) (bool, error) {
		r := cli.run(ctx, "delete", name, "--dry-run=server")
		return r.code == cliExitRefused, fmt.Errorf("exit code %d: %s", r.code, r.stderr)
	})
	cli.run(ctx, "delete", name).want(t, cliExitRefused, "refused by the deletion-protection admission policy", "has deletion protection on", "spec.deletionProtection: false")
	if c := getClaimOrFail(ctx, t, name); c.GetDeletionTimestamp() != nil {
		t.Fatalf("the protected SCSCluster is being deleted")
	}

	// Released as the refusal says, then deleted with its Shoot.
	cli.run(ctx, "apply", "-f", manifest("1.34", 2, 5, false)).wantStdout(t, 0, "scscluster.kaas.scs.community/cli serverside-applied\n")
	waitFor(ctx, t, deadline, "the Shoot's Object deleted with the SCSCluster", shootObjectDeletes(native, true))
	waitShootMatches(ctx, t, deadline, native, "confirmed for deletion", func(s *unstructured.Unstructured) bool {
		return s.GetAnnotations()[confirmDeletion] == "true"
	})
	rendered(ctx, t, name)
	// kubectl-scs says what a deletion does from the SCSCluster's status, which follows the
	// Object's deletion policy a reconcile later.
	waitClaim(ctx, t, deadline, name, "status.backend.deletionPolicy Delete", fieldIs("Delete", "status", "backend", "deletionPolicy"))
	start = time.Now()
	cli.run(ctx, "delete", name, "--wait", "--timeout=5m").wantStdout(t, 0, "scscluster.kaas.scs.community/cli deleted\n")
	measure(t, "kubectl-scs delete --wait -> SCSCluster gone", start)
	waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
	cli.run(ctx, "get", name).want(t, cliExitError, "SCSCluster team1/cli not found")
}

// withoutAge is a table's lines as their cells, without the last one, AGE, which differs
// between two calls a second apart.
func withoutAge(table string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		cells := strings.Fields(line)
		if len(cells) > 0 {
			cells = cells[:len(cells)-1]
		}
		out = append(out, strings.Join(cells, " "))
	}
	return out
}

// shootObjectDeletes is a waitFor condition: the provider-kubernetes Object around the
// Shoot deletes the Shoot with it (want true), or keeps it (want false), as deletion
// protection says: a deletion policy for the legacy flavour's cluster-scoped Object,
// management policies for the namespaced one's.
func shootObjectDeletes(native string, want bool) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		ri := objects()
		if flavour == flavourNamespaced {
			ri = cp.Dynamic.Resource(namespacedObjectGVR).Namespace(claimNamespace)
		}
		obj, err := ri.Get(ctx, native+"-shoot", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		policy := str(obj, "spec", "deletionPolicy")
		deletes := policy == "Delete"
		if flavour == flavourNamespaced {
			policies, found, _ := unstructured.NestedStringSlice(obj.Object, "spec", "managementPolicies")
			policy = strings.Join(policies, ",")
			deletes = !found || slices.Contains(policies, "*") || slices.Contains(policies, "Delete")
		}
		return deletes == want, fmt.Errorf("Object %s-shoot: %q", native, policy)
	}
}

// kubectlSCS runs the kubectl-scs binary against the Crossplane cluster, as a user would:
// --kubeconfig and -n on every command line, a HOME of its own and no $KUBECONFIG, so that
// nothing but the flags reaches a cluster and nothing outside the test's directories is
// written.
type kubectlSCS struct {
	t    *testing.T
	bin  string
	home string
}

// newCLI gives a test kubectl-scs with a HOME of its own: SCS_KAAS_KUBECTL_SCS, else the
// binary built from clients/kubectl-scs once per run.
func newCLI(t *testing.T) *kubectlSCS {
	t.Helper()
	bin, err := kubectlSCSBinary()
	if err != nil {
		t.Fatal(err)
	}
	return &kubectlSCS{t: t, bin: bin, home: t.TempDir()}
}

// kubectlSCSBinary builds kubectl-scs into the run directory the first time a test asks.
var kubectlSCSBinary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("SCS_KAAS_KUBECTL_SCS"); bin != "" {
		return filepath.Abs(bin)
	}
	bin := filepath.Join(runDir, "kubectl-scs")
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(repoRoot, "clients", "kubectl-scs")
	// Static, as released; the build cache the other builds share is a cgo-off one.
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building kubectl-scs: %w\n%s", err, out)
	}
	logf("built kubectl-scs in %.1fs", time.Since(start).Seconds())
	return bin, nil
})

// cliResult is what one command line printed, and its exit code.
type cliResult struct {
	args           []string
	stdout, stderr string
	code           int
}

func (c *kubectlSCS) command(ctx context.Context, connect bool, args ...string) *exec.Cmd {
	if connect {
		args = append(args, "--kubeconfig", cp.Kubeconfig, "-n", claimNamespace)
	}
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = c.home
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "HOME=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+c.home)
	return cmd
}

// run runs a command line against the Crossplane cluster and logs what it printed.
func (c *kubectlSCS) run(ctx context.Context, args ...string) cliResult {
	c.t.Helper()
	return c.exec(c.command(ctx, true, args...), args, false)
}

// offline runs a command line without any kubeconfig.
func (c *kubectlSCS) offline(ctx context.Context, args ...string) cliResult {
	c.t.Helper()
	return c.exec(c.command(ctx, false, args...), args, false)
}

// secret runs a command line whose standard output holds credentials: only its size is
// logged.
func (c *kubectlSCS) secret(ctx context.Context, args ...string) cliResult {
	c.t.Helper()
	return c.exec(c.command(ctx, true, args...), args, true)
}

func (c *kubectlSCS) exec(cmd *exec.Cmd, args []string, secret bool) cliResult {
	c.t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := cliResult{args: args, stdout: stdout.String(), stderr: stderr.String(), code: exitCodeOf(c.t, err)}
	r.log(c.t, time.Since(start), secret)
	return r
}

func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running kubectl-scs: %v", err)
	return -1
}

func (r cliResult) log(t *testing.T, took time.Duration, secret bool) {
	t.Helper()
	out := r.stdout
	if secret {
		out = fmt.Sprintf("(%d bytes of credentials, not shown)\n", len(r.stdout))
	}
	indent := func(s string) string {
		return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
	}
	t.Logf("$ kubectl-scs %s (%.1fs, exit %d)\n%s\n  stderr:\n%s", strings.Join(r.args, " "), took.Seconds(), r.code, indent(out), indent(r.stderr))
}

// want fails unless the command exited with code and printed each string, on standard
// output or standard error.
func (r cliResult) want(t *testing.T, code int, contains ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("kubectl-scs %s: exit code %d, want %d", strings.Join(r.args, " "), r.code, code)
	}
	for _, s := range contains {
		if !strings.Contains(r.stdout, s) && !strings.Contains(r.stderr, s) {
			t.Errorf("kubectl-scs %s: output does not contain %q", strings.Join(r.args, " "), s)
		}
	}
}

// wantStdout fails unless the command exited with code and printed exactly stdout.
func (r cliResult) wantStdout(t *testing.T, code int, stdout string) {
	t.Helper()
	r.want(t, code)
	if r.stdout != stdout {
		t.Errorf("kubectl-scs %s: stdout %q, want %q", strings.Join(r.args, " "), r.stdout, stdout)
	}
}

// running is a command line running in the background, its standard error read line by
// line as it comes.
type running struct {
	c      *kubectlSCS
	cmd    *exec.Cmd
	args   []string
	start  time.Time
	stdout bytes.Buffer
	lines  chan string
	seen   []string
}

// start starts a command line against the Crossplane cluster.
func (c *kubectlSCS) start(ctx context.Context, args ...string) *running {
	c.t.Helper()
	r := &running{c: c, cmd: c.command(ctx, true, args...), args: args, lines: make(chan string, 100)}
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	r.start = time.Now()
	if err := r.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		defer close(r.lines)
		s := bufio.NewScanner(pipe)
		for s.Scan() {
			r.lines <- s.Text()
		}
	}()
	return r
}

// waitLine waits until the command prints a line on standard error that contains want.
func (r *running) waitLine(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				t.Fatalf("kubectl-scs %s ended without printing %q; it printed:\n%s", strings.Join(r.args, " "), want, strings.Join(r.seen, "\n"))
			}
			r.seen = append(r.seen, line)
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			t.Fatalf("kubectl-scs %s did not print %q within %s; it printed:\n%s", strings.Join(r.args, " "), want, deadline, strings.Join(r.seen, "\n"))
		}
	}
}

// finish waits until the command ends and returns what it printed.
func (r *running) finish(t *testing.T) cliResult {
	t.Helper()
	timeout := time.After(faultDeadline)
	for done := false; !done; {
		select {
		case line, ok := <-r.lines:
			if !ok {
				done = true
				break
			}
			r.seen = append(r.seen, line)
		case <-timeout:
			t.Fatalf("kubectl-scs %s did not end within %s; it printed:\n%s", strings.Join(r.args, " "), faultDeadline, strings.Join(r.seen, "\n"))
		}
	}
	// Only now: Wait closes the pipe, which must have been read to its end.
	res := cliResult{args: r.args, code: exitCodeOf(t, r.cmd.Wait())}
	res.stdout, res.stderr = r.stdout.String(), strings.Join(r.seen, "\n")+"\n"
	res.log(t, time.Since(r.start), false)
	return res
}

// removeCLIClaim deletes what a failed run left, protection off first.
func removeCLIClaim(t *testing.T, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := getClaim(ctx, name)
	if err != nil {
		return
	}
	t.Logf("removing SCSCluster %s left by the test", name)
	if p, _, _ := unstructured.NestedBool(c.Object, "spec", "deletionProtection"); p {
		c.Object["spec"].(map[string]any)["deletionProtection"] = false
		if _, err := claims().Update(ctx, c, metav1.UpdateOptions{}); err == nil {
			waitClaim(ctx, t, deadline, name, "rendered without protection", hasCondition(kaasv1alpha1.ConditionRendered, "True", ""))
		}
	}
	_ = claims().Delete(ctx, name, metav1.DeleteOptions{})
}
