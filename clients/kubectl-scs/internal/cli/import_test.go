package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// exampleShoot writes the Shoot of examples/render/gardener/observed-ready.yaml to a file,
// as `kubectl get shoot -o yaml` prints it: unwrapped from the provider-kubernetes Object
// that reports it (status.atProvider.manifest), with its uid, generation and status. edit,
// if not nil, changes the Shoot.
func exampleShoot(t *testing.T, edit func(shoot *unstructured.Unstructured)) string {
	t.Helper()
	objs, err := readManifests(nil, repo+"/examples/render/gardener/observed-ready.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest, found, err := unstructured.NestedMap(objs[0].Object, "status", "atProvider", "manifest")
	if err != nil || !found {
		t.Fatalf("the example's first object reports no manifest (found %v): %v", found, err)
	}
	shoot := &unstructured.Unstructured{Object: manifest}
	if shoot.GetKind() != "Shoot" {
		t.Fatalf("the example's first object reports a %s, not a Shoot", shoot.GetKind())
	}
	if edit != nil {
		edit(shoot)
	}
	data, err := yaml.Marshal(shoot.Object)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shoot.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// withoutLabels is a Shoot made outside this API: it carries none of the cluster's labels.
func withoutLabels(shoot *unstructured.Unstructured) { shoot.SetLabels(nil) }

// importedSummary is what the tests check of a printed SCSCluster, one field a line: its
// identity, its annotations, and the fields of the example that come from the Shoot.
func importedSummary(t *testing.T, stdout string) string {
	t.Helper()
	obj := &unstructured.Unstructured{}
	data, err := yaml.YAMLToJSON([]byte(stdout))
	if err != nil {
		t.Fatalf("the output is not YAML: %v\n%s", err, stdout)
	}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatalf("the output is not one object: %v\n%s", err, stdout)
	}
	var b strings.Builder
	for _, path := range []string{
		"apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.annotations",
		"spec.environment", "spec.purpose", "spec.deletionProtection", "spec.kubernetes.version",
		"spec.controlPlane.highAvailability", "spec.maintenance.window", "spec.network",
	} {
		v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(path, ".")...)
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", path, js)
	}
	pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
	for _, p := range pools {
		pool := p.(map[string]any)
		size := fmt.Sprint(pool["count"])
		if a, ok := pool["autoscaling"].(map[string]any); ok {
			size = fmt.Sprintf("%v-%v", a["min"], a["max"])
		}
		fmt.Fprintf(&b, "pool %v: %v x %s, %v GiB, zones %v\n", pool["name"], pool["machineType"], size, pool["rootDiskGiB"], pool["zones"])
	}
	return b.String()
}

// importedShop is the summary of the SCSCluster the example Shoot imports as, with its
// metadata lines (name, namespace, annotations) given.
func importedShop(name, namespace, annotations string) string {
	return fmt.Sprintf(`apiVersion: "kaas.scs.community/v1alpha1"
kind: "SCSCluster"
metadata.name: %q
metadata.namespace: %q
metadata.annotations: %s
spec.environment: "gardener-regionone"
spec.purpose: "production"
spec.deletionProtection: true
spec.kubernetes.version: "1.34"
spec.controlPlane.highAvailability: true
spec.maintenance.window: {"begin":"010000+0100","end":"040000+0100"}
spec.network: {"cni":"cilium","nodeCIDR":"10.250.0.0/16","podCIDR":"100.64.0.0/12","serviceCIDR":"100.80.0.0/13"}
pool system: SCS-4V-8 x 3, 50 GiB, zones [az1 az2 az3]
pool general: SCS-8V-32 x 3-9, 50 GiB, zones [az1 az2 az3]
pool memory: SCS-8V-64 x 0-6, 50 GiB, zones [az1 az2 az3]
pool compute: SCS-16V-32 x 0-12, 100 GiB, zones [az1 az2 az3]
pool ingress: SCS-2V-4 x 3, 50 GiB, zones [az1 az2 az3]
`, name, namespace, annotations)
}

// keepsMachineImage is the note on the one setting the example Shoot runs with that the
// example environment does not name: the cluster keeps it.
const keepsMachineImage = `Note: data.gardener.machineImage: the cluster runs with {"name":"gardenlinux","version":"1877.3.0"}, the environment names (unset) now; the cluster keeps its own, new clusters get the environment's
`

// handover is the note that hands the example Shoot over to the cluster id.
func handover(id model.Identity) string {
	return "Note: hand Shoot shop-6bru6k over before applying (it is adopted only with the cluster's labels): " +
		"kubectl label shoot shop-6bru6k -n garden-team1 kaas.scs.community/cluster=shop-6bru6k kaas.scs.community/identity=" + id.Hash() + "\n"
}

func TestImport(t *testing.T) {
	shop := model.Identity{Namespace: "team1", Name: "shop"}
	store := model.Identity{Namespace: "team1", Name: "store"}
	// The example Shoot was made for team1/shop: its label says so.
	if got, want := shop.Hash(), "f0634f283fed904574437a8558545815"; got != want {
		t.Fatalf("the identity of team1/shop hashes to %s, the example Shoot's label is %s", got, want)
	}
	envs := repo + "/examples/environments"
	importArgs := func(shoot string, more ...string) []string {
		return append([]string{"import", "-f", shoot, "--environment", envs}, more...)
	}
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		// summary is importedSummary of stdout; "" when nothing is printed.
		summary string
		stderr  string
		code    int
	}{
		{
			name: "a Shoot this API made for the cluster: printed as its SCSCluster, nothing to hand over",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, nil), "--in", "gardener-regionone", "--name", "shop", "-n", "team1")
			},
			summary: importedShop("shop", "team1", "null"),
			stderr:  keepsMachineImage,
		},
		{
			name: "a Shoot made outside this API: the kubectl label command that hands it over",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, withoutLabels), "--name", "shop", "-n", "team1")
			},
			summary: importedShop("shop", "team1", "null"),
			stderr:  keepsMachineImage + handover(shop),
		},
		{
			name: "a Shoot with the identity but not the cluster label: handed over too",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, func(s *unstructured.Unstructured) {
					s.SetLabels(map[string]string{model.LabelIdentity: shop.Hash()})
				}), "--name", "shop", "-n", "team1")
			},
			summary: importedShop("shop", "team1", "null"),
			stderr:  keepsMachineImage + handover(shop),
		},
		{
			name: "a name that derives another native name: the annotation names the Shoot",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, withoutLabels), "--name", "store", "-n", "team1")
			},
			summary: importedShop("store", "team1", `{"kaas.scs.community/native-name":"shop-6bru6k"}`),
			stderr:  keepsMachineImage + handover(store),
		},
		{
			name: "as JSON",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, nil), "--name", "shop", "-n", "team1", "-o", "json")
			},
			summary: importedShop("shop", "team1", "null"),
			stderr:  keepsMachineImage,
		},
		{
			name: "a Shoot labelled for another cluster is refused",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, nil), "--name", "store", "-n", "team1")
			},
			stderr: "error: refused (TakeoverRefused): Shoot garden-team1/shop-6bru6k belongs to another cluster (label kaas.scs.community/identity=" +
				shop.Hash() + ", team1/store is " + store.Hash() + "): it is not imported\n",
			code: ExitRefused,
		},
		{
			name: "an environment not offered to the namespace is refused",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, withoutLabels), "--in", "gardener-regionone", "--name", "shop", "-n", "team3")
			},
			stderr: `error: refused (EnvironmentUnavailable): environment "gardener-regionone" is not offered to namespace team3; no environment is offered to namespace team3: the platform team admits namespaces in an EnvironmentConfig's data.access` + "\n",
			code:   ExitRefused,
		},
		{
			name:   "a file that is not there",
			args:   func(*testing.T) []string { return importArgs("shoot.yaml", "--name", "shop", "-n", "team1") },
			stderr: "error: stat shoot.yaml: no such file or directory\n",
			code:   ExitError,
		},
		{
			name: "without -f",
			args: func(*testing.T) []string {
				return []string{"import", "--environment", envs, "--name", "shop", "-n", "team1"}
			},
			stderr: "error: -f is required: the cluster's native objects\n",
			code:   ExitUsage,
		},
		{
			name: "without --environment",
			args: func(t *testing.T) []string {
				return []string{"import", "-f", exampleShoot(t, nil), "--name", "shop", "-n", "team1"}
			},
			stderr: "error: --environment is required: the EnvironmentConfigs to choose from\n",
			code:   ExitUsage,
		},
		{
			name:   "without --name",
			args:   func(t *testing.T) []string { return importArgs(exampleShoot(t, nil), "-n", "team1") },
			stderr: "error: --name is required: the SCSCluster's name\n",
			code:   ExitUsage,
		},
		{
			// The kubeconfig's namespace is not taken: the identity, and with it the labels
			// the handover writes, must be the one the team applies the SCSCluster in.
			name:   "without -n",
			args:   func(t *testing.T) []string { return importArgs(exampleShoot(t, nil), "--name", "shop") },
			stderr: "error: -n is required: the namespace of the team the cluster is for\n",
			code:   ExitUsage,
		},
		{
			name: "an argument",
			args: func(t *testing.T) []string {
				return importArgs(exampleShoot(t, nil), "--name", "shop", "-n", "team1", "shop")
			},
			stderr: "error: kubectl scs import takes no arguments; the native objects come with -f; see kubectl scs import --help\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourNamespaced)
			stdout, stderr, code := h.run("", tc.args(t)...)
			summary := ""
			if stdout != "" {
				summary = importedSummary(t, stdout)
			}
			if diff := cmp.Diff(tc.summary, summary); diff != "" {
				t.Errorf("printed SCSCluster (-want +got):\n%s\nstdout:\n%s", diff, stdout)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			// Import is offline: it reads files, never the cluster.
			if n := len(h.dyn.Actions()); n != 0 {
				t.Errorf("import sent %d requests to the API server, want none", n)
			}
		})
	}
}
