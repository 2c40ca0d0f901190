package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// demo is `make demo`: the control plane up, the example claims applied, and what a user
// looks at once their Shoots exist. It leaves everything running.
func demo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	c := upFlags(fs)
	var claimPaths list
	fs.Var(&claimPaths, "claims", "claim files or directories to apply once the control plane is up (repeatable, comma-separated)")
	wait := fs.Duration("wait", 3*time.Minute, "how long to wait for the claims' Shoots")
	flavour := fs.String("flavour", "namespaced", "the API flavour the manifests install, for the how-to printed at the end: namespaced (v2 SCSCluster composites) or legacy (SCSCluster claims)")
	_ = fs.Parse(args)
	if *flavour != "namespaced" && *flavour != "legacy" {
		return fmt.Errorf("--flavour=%q: want namespaced or legacy", *flavour)
	}

	ctx, cancel := signalContext(*c.timeout)
	defer cancel()
	started := time.Now()
	env, err := c.start(ctx)
	if err != nil {
		return err
	}
	logf("control plane up in %.1fs", time.Since(started).Seconds())
	s := env.State()
	hint := func(err error) error {
		return fmt.Errorf("%w\nThe playground keeps running for inspection (logs in %s); make down stops it", err, s.LogDir)
	}

	claims, err := controlplane.ReadManifests(claimPaths...)
	if err != nil {
		return hint(err)
	}
	applied := time.Now()
	if err := env.Crossplane.ApplyObjects(ctx, claims...); err != nil {
		return hint(err)
	}
	var shown []demoClaim
	for _, cl := range claims {
		ns, name := cl.GetNamespace(), cl.GetName()
		var st *claimStatus
		err := controlplane.WaitFor(ctx, *wait, fmt.Sprintf("claim %s/%s: rendered and its native object created", ns, name), func(ctx context.Context) (bool, error) {
			if st, err = getClaim(ctx, env.Crossplane.Dynamic, ns, name); err != nil {
				return false, err
			}
			synced, _, _ := st.condition("Synced")
			rendered, _, msg := st.condition("Rendered")
			if synced != "True" || rendered != "True" || st.native.Kind == "" {
				return false, fmt.Errorf("%s %s", st.describe(), msg)
			}
			// Shoots live in the garden; Clusters and Magnum managed resources next to the
			// claims, in the Crossplane cluster.
			where := env.Crossplane
			if st.native.isShoot() {
				where = env.Garden
			}
			_, err := where.Get(ctx, st.native.APIVersion, st.native.Kind, st.native.Namespace, st.native.Name)
			return err == nil, err
		})
		if err != nil {
			return hint(err)
		}
		protected, found, _ := unstructured.NestedBool(cl.Object, "spec", "deletionProtection")
		if !found {
			purpose, _, _ := unstructured.NestedString(cl.Object, "spec", "purpose")
			protected = purpose == "production"
		}
		shown = append(shown, demoClaim{namespace: ns, name: name, native: st.native, latency: time.Since(applied), protected: protected})
		if !st.native.isShoot() {
			continue
		}
		// gardenlet publishes a Shoot's CAs early in its creation; gardener-apiserver needs
		// them to issue admin kubeconfigs. Doing it now lets a hand-written status alone
		// make the claim Ready. They are the Gardener workload API server's, which make
		// simulate names as the Shoot's.
		cluster, _ := gardenerWorkload(env.RunDir)
		if err := gardensim.PublishCAs(ctx, env.Garden.Client, env.Garden.Dynamic, st.native.Namespace, st.native.Name, cluster); err != nil {
			return hint(err)
		}
	}
	logf("claims rendered and their native objects created in %.1fs", time.Since(applied).Seconds())
	if len(shown) == 0 {
		return hint(errors.New("no claims given (--claims)"))
	}
	if err := writeStatusPatches(ctx, env, shown); err != nil {
		return hint(err)
	}
	printDemo(s, env.RunDir, *flavour, shown, *c.configuration != "", *c.conformanceBackends, *c.addons)
	return nil
}

// demoClaim is one applied claim and what became of it.
type demoClaim struct {
	namespace, name string
	native          nativeRef
	latency         time.Duration // from apply to the native object
	protected       bool          // deletion protection on
	patches         map[gardensim.State]string
}

// writeStatusPatches writes, per claim, JSON patches that set the status Gardener would
// write on its Shoot now, for users who want to play Gardener with kubectl alone.
func writeStatusPatches(ctx context.Context, env *controlplane.Env, claims []demoClaim) error {
	dir := filepath.Join(env.RunDir, "gardener-status")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, c := range claims {
		if !c.native.isShoot() {
			continue
		}
		shoot, err := env.Garden.Get(ctx, c.native.APIVersion, c.native.Kind, c.native.Namespace, c.native.Name)
		if err != nil {
			return err
		}
		claims[i].patches = map[gardensim.State]string{}
		for _, st := range []gardensim.State{gardensim.Healthy, gardensim.QuotaExceeded} {
			status, err := gardensim.Status(shoot, st, time.Now())
			if err != nil {
				return err
			}
			// "add" replaces /status whether or not it exists, so a patch also clears what
			// an earlier state left (lastErrors).
			data, err := json.MarshalIndent([]any{map[string]any{"op": "add", "path": "/status", "value": status}}, "", "  ")
			if err != nil {
				return err
			}
			f := filepath.Join(dir, c.namespace+"-"+c.name+"-"+string(st)+".json")
			if err := os.WriteFile(f, append(data, '\n'), 0o644); err != nil {
				return err
			}
			claims[i].patches[st] = f
		}
	}
	return nil
}

func printDemo(s controlplane.State, runDir, flavour string, claims []demoClaim, packages, conformance, addons bool) {
	sort.Slice(claims, func(i, j int) bool { return claims[i].name < claims[j].name })
	garden := s.GardenKubeconfig

	fmt.Printf(`
================================================================================
The SCS cluster API playground runs (run dir %s).

Crossplane cluster: kube-apiserver, etcd, kube-controller-manager, Crossplane core, the
composition function, provider-kubernetes, provider-gardener-kubeconfig, and Cluster API
(core, kubeadm control plane and bootstrap managers) with the SCS scs2 ClusterClasses.
Garden cluster:     kube-apiserver and etcd with the real gardener-apiserver aggregated
                    (Shoots admitted against the CloudProfile "openstack"; the real
                    shoots/adminkubeconfig), a Project per team, a Seed.
No gardenlet runs: Shoots are created, updated and deleted for real, but nothing builds
clusters or reports on them until you write their status (below).

`, runDir)
	if packages {
		fmt.Println("The project was installed as docs/install.md installs it air-gapped: its packages pushed to a")
		fmt.Println("local registry, ImageConfigs that rewrite the public names to it, and one Configuration;")
		fmt.Println("Crossplane's package manager installed the Function and the Providers:")
		kubectl(s, s.CrossplaneKubeconfig, "get", "configurations,functions,providers")
	}
	// What the composed objects are called in each flavour: namespaced composites compose
	// the Crossplane v2 (.m.) kinds in their own namespace.
	what, composed, magnum := "The claims", "xscsclusters,objects.kubernetes.crossplane.io,adminkubeconfigs.gardener.kaas.scs.community", "containerinfra.openstack.crossplane.io"
	if flavour == "namespaced" {
		what, composed, magnum = "The SCSClusters (Crossplane v2 namespaced composites)", "objects.kubernetes.m.crossplane.io,adminkubeconfigs.gardener.m.kaas.scs.community,secrets -A", "containerinfra.openstack.m.crossplane.io"
	}
	fmt.Println(what + " and their status:")
	kubectl(s, s.CrossplaneKubeconfig, "get", "scsclusters", "-A", "-o", "wide")
	kinds := map[string]bool{}
	for _, c := range claims {
		kinds[c.native.Kind] = true
	}
	if kinds["Shoot"] {
		fmt.Println("The native Shoots provider-kubernetes created in the garden cluster:")
		kubectl(s, garden, "get", "shoots", "-A")
	}
	if kinds["Cluster"] {
		fmt.Println("The Cluster API Clusters (SCS Cluster Stacks), composed in the Crossplane cluster, and what")
		fmt.Println("Cluster API's topology controller made of them:")
		kubectl(s, s.CrossplaneKubeconfig, "get", "clusters.cluster.x-k8s.io,kubeadmcontrolplanes,machinedeployments", "-A")
	}
	if kinds["ClusterV1"] {
		fmt.Println("The provider-openstack managed resources of the Magnum clusters:")
		kubectl(s, s.CrossplaneKubeconfig, "get", "clusterv1s."+magnum+",nodegroupv1s."+magnum, "-A")
	}
	for _, c := range claims {
		fmt.Printf("  SCSCluster %s/%s -> %s %s in %.1fs\n", c.namespace, c.name, c.native.Kind, c.native.path(), c.latency.Seconds())
	}
	if addons {
		fmt.Print(`
Add-ons (docs/addons.md): Flux's source- and kustomize-controller run beside Crossplane, and
every environment offers examples/addons from the local registry: hello (enforced) and web
(default). Once make simulate has made a cluster Ready, Flux applies them to its workload API
server with the kubeconfig it delivered (kubectl get scsclusters -A -o wide: AddonsReady;
kubectl get kustomizations -A), and the cluster is registered for Argo CD (kubectl get
secrets -A -l argocd.argoproj.io/secret-type=cluster).
`)
	}
	if kinds["Cluster"] || kinds["ClusterV1"] {
		fmt.Print(`
Cluster API runs; no Cluster Stack operator, OpenStack provider, provider-openstack or
kubelet does: their CRDs are served, the function's objects are stored and validated, and the
ClusterStackReleases carry the status the operator would write. Write the status those would
write as the end-to-end tests do (test/e2e/capi_test.go, test/e2e/magnum_test.go), and the
clusters follow.
`)
	}

	// The how-to uses an unprotected Gardener claim, so that its delete line works.
	var ex demoClaim
	for _, c := range claims {
		if c.native.isShoot() && (ex.name == "" || (ex.protected && !c.protected)) {
			ex = c
		}
	}
	if ex.name == "" {
		printDeletion(claims, conformance)
		return
	}
	fmt.Printf(`
Look around:
  export KUBECONFIG=%[1]s    # the Crossplane cluster
  alias kubectl=%[2]s        # the pinned kubectl (any recent kubectl works)
  kubectl get scsclusters -A                  # or: kubectl get kaas -A
  kubectl describe scscluster -n %[3]s %[4]s     # conditions Rendered, BackendReady, SpecSupported
  kubectl get %[9]s
  kubectl --kubeconfig %[5]s -n %[6]s get shoot %[7]s -o yaml

Change a claim: edit examples/claims/*.yaml (e.g. autoscaling.max, or kubernetes.version one
minor up) and kubectl apply -f it; the Shoot follows within a second. Apply a claim with a
bad CIDR or a version two minors up, and the API server refuses it.

Play Gardener (writes the status Gardener would write; the claim follows within seconds):
  make simulate CLAIM=%[4]s STATE=healthy          # Ready, apiServerURL, kubeconfig in the connection secret
  make simulate CLAIM=%[4]s STATE=quota-exceeded   # BackendReady=False, reason ERR_INFRA_QUOTA_EXCEEDED
or by hand, with a patch written for the Shoot's current generation:
  kubectl --kubeconfig %[5]s -n %[6]s patch shoot %[7]s \
    --subresource=status --type=json --patch-file %[8]s
`, s.CrossplaneKubeconfig, s.Kubectl, ex.namespace, ex.name, garden, ex.native.Namespace, ex.native.Name, ex.patches[gardensim.Healthy], composed)
	printDeletion(claims, conformance)
}

// printConformance says how to run the conformance kit against the playground.
func printConformance() {
	fmt.Print(`
The conformance kit (docs/conformance.md) runs against this playground on every backend:
  make conformance       # kubectl scs conformance -n team1 --environment <each example environment> --minors 1.34
The playground plays the backends of the kit's clusters (labelled kaas.scs.community/conformance-run;
yours stay yours to play): Gardener's status, the OpenStack infrastructure and machines of
Cluster API, Magnum. Two API servers stand in for the clusters (Kubernetes 1.34, Nodes in az1
and az2, and in nova), so the kit's kubeconfig, version and zone checks talk to a real API server.
`)
}

func printDeletion(claims []demoClaim, conformance bool) {
	fmt.Println("\nDeletion:")
	for _, c := range claims {
		if c.protected {
			fmt.Printf("  kubectl delete scscluster -n %s %s   # refused: deletion protection (docs/deletion-protection.md)\n", c.namespace, c.name)
		} else {
			fmt.Printf("  kubectl delete scscluster -n %s %s   # deletes its %s\n", c.namespace, c.name, c.native.Kind)
		}
	}
	if conformance {
		printConformance()
	}
	fmt.Println("\nStop everything: make down        More: docs/e2e.md")
}
