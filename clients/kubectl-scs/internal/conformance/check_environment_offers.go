package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// environment-offers: the environment tells the namespace what it offers (Kubernetes
// minors, machine types, zones), and the run tests the offered minors it was asked to. The
// offer comes from the environment's EnvironmentConfig where the user may read it, else from
// status.offered of a cluster of the namespace in that environment, else, when the user gave
// --minors and --machine-type, from status.offered of the first cluster the run creates: then
// the check's result follows that cluster's create-ready (learnOffer), or the clusters of
// every minor (environmentOffersUnlearnt).
const (
	offersID          = "environment-offers"
	offersDescription = "the environment tells the namespace what it offers"
)

// environmentOffersInput is what environment-offers needs.
type environmentOffersInput struct {
	// Environment is the environment under test, Namespace the one it must admit.
	Environment, Namespace string
	// Minors are the minors the user asked to test (--minors), MachineType the machine type
	// the user gave (--machine-type); with both, an offer that is not readable before the
	// clusters is learnt from the first Ready cluster.
	Minors      []string
	MachineType string
}

// environmentOffers reads the offer and chooses the minors to test; or, when the offer is
// not readable and the user gave --minors and --machine-type, tests those minors and leaves
// the offer to learnOffer (r.unread). It ends the run when it fails.
func (r *run) environmentOffers(ctx context.Context) bool {
	o := &r.kit.Options
	in := environmentOffersInput{Environment: o.Environment, Namespace: o.Namespace, Minors: o.Minors, MachineType: o.MachineType}
	var offer Offer
	var unread error
	if ctx.Err() == nil {
		offer, unread = r.discover(ctx, in)
		if unread != nil && len(in.Minors) > 0 && in.MachineType != "" {
			r.unread = unread
			r.out.Minors = sortMinors(slices.Clone(in.Minors))
			r.logf("%s: %v; testing --minors %s and reading the offer from the first cluster's status.offered", offersID, unread, strings.Join(r.out.Minors, ", "))
			return true
		}
	}
	return r.step(ctx, offersID, offersDescription, func(context.Context) (string, bool, error) {
		if unread != nil {
			return "", false, fmt.Errorf("%v; or give --minors and --machine-type, and the kit reads the offer from the first cluster it creates", unread)
		}
		r.out.Offered = offer
		minors, err := selectMinors(offer.KubernetesVersions, in.Minors)
		if err != nil {
			return "", false, err
		}
		r.out.Minors = minors
		return describeOffer(in.Environment, offer, minors), false, nil
	})
}

// learnOfferInput is what environment-offers needs when it learns the offer from a cluster.
type learnOfferInput struct {
	Environment string
	// Cluster is the first cluster that became Ready; Minors the minors under test, which
	// its offer must include.
	Cluster string
	Minors  []string
}

// learnOffer is environment-offers after the first create-ready that passed, when the offer
// was not readable before the clusters: the offer is the cluster's status.offered.
func (r *run) learnOffer(ctx context.Context, minor string) bool {
	if r.unread == nil {
		return true
	}
	in := learnOfferInput{Environment: r.kit.Options.Environment, Cluster: r.ready[minor], Minors: r.out.Minors}
	r.step(ctx, offersID, offersDescription, func(ctx context.Context) (string, bool, error) {
		r.unread = nil
		c, err := r.clusters().Get(ctx, in.Cluster, metav1.GetOptions{})
		if err != nil {
			return "", false, fmt.Errorf("reading %s: %s", in.Cluster, reasonOf(err))
		}
		offer, found := offeredBy(c)
		if !found {
			return "", false, fmt.Errorf("SCSCluster %s reports no status.offered", in.Cluster)
		}
		r.out.Offered = offer
		if _, err := selectMinors(offer.KubernetesVersions, in.Minors); err != nil {
			return "", false, err
		}
		return describeOffer(in.Environment, offer, in.Minors), false, nil
	})
	return true
}

// environmentOffersUnlearnt is environment-offers when the offer was to be learnt from a
// cluster and no cluster became Ready to report it.
func (r *run) environmentOffersUnlearnt(ctx context.Context) bool {
	switch {
	case r.unread != nil && ctx.Err() != nil:
		r.skip(offersID, offersDescription, "not run: the run was interrupted before a cluster could report status.offered")
	case r.unread != nil:
		r.out.Results = append(r.out.Results, Result{ID: offersID, Description: offersDescription, Verdict: Failed,
			Message: fmt.Sprintf("%v, and no cluster became Ready to report status.offered", r.unread)})
	}
	return true
}

// describeOffer is the message of a passed environment-offers.
func describeOffer(environment string, offer Offer, minors []string) string {
	return fmt.Sprintf("environment %s offers Kubernetes %s, machine types %s, zones %s (from %s); testing %s",
		environment, strings.Join(offer.KubernetesVersions, ", "), orAny(offer.MachineTypes), orNone(strings.Join(offer.Zones, ", ")),
		offer.Source, strings.Join(minors, ", "))
}

// discover reads the offer: from the environment's EnvironmentConfig where the user may read
// it and it admits the namespace, else from status.offered of a cluster of the namespace in
// that environment.
func (r *run) discover(ctx context.Context, in environmentOffersInput) (Offer, error) {
	dyn := r.kit.Dynamic
	configs, cfgErr := dyn.Resource(EnvConfigGVR).List(ctx, metav1.ListOptions{LabelSelector: envv1alpha1.LabelEnvironment + "=" + in.Environment})
	if cfgErr == nil {
		tenant := model.Tenant{Namespace: in.Namespace}
		if ns, err := dyn.Resource(NamespaceGVR).Get(ctx, in.Namespace, metav1.GetOptions{}); err == nil {
			tenant.Labels = ns.GetLabels()
		}
		for i := range configs.Items {
			cfg := &configs.Items[i]
			if !model.Admits(model.AccessOf(cfg), tenant) {
				continue
			}
			return offerAt(cfg, "EnvironmentConfig "+cfg.GetName(), "data", "catalog"), nil
		}
	}
	list, err := dyn.Resource(ClusterGVR).Namespace(in.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return Offer{}, fmt.Errorf("the SCSClusters of namespace %s are not readable: %w", in.Namespace, err)
	}
	for i := range list.Items {
		c := &list.Items[i]
		if fields.String(c, "status", "backend", "environment") != in.Environment {
			continue
		}
		if offer, found := offeredBy(c); found {
			return offer, nil
		}
	}
	why := "no EnvironmentConfig labelled " + envv1alpha1.LabelEnvironment + "=" + in.Environment + " admits namespace " + in.Namespace
	if cfgErr != nil {
		why = "EnvironmentConfigs are not readable (" + reasonOf(cfgErr) + ")"
	}
	return Offer{}, fmt.Errorf("environment %s: %s, and no SCSCluster of namespace %s in it reports status.offered; create one cluster in it, or ask the platform team for read access to EnvironmentConfigs", in.Environment, why, in.Namespace)
}

// offeredBy is the offer a cluster reports in status.offered; false when it reports none.
func offeredBy(c *unstructured.Unstructured) (Offer, bool) {
	if _, found, _ := unstructured.NestedMap(c.Object, "status", "offered"); !found {
		return Offer{}, false
	}
	return offerAt(c, "status.offered of SCSCluster "+c.GetName(), "status", "offered"), true
}

// offerAt reads the lists of an offer below path: an EnvironmentConfig's data.catalog, a
// cluster's status.offered.
func offerAt(obj *unstructured.Unstructured, source string, path ...string) Offer {
	list := func(name string) []string { return fields.Strings(obj, append(slices.Clone(path), name)...) }
	return Offer{KubernetesVersions: list("kubernetesVersions"), MachineTypes: list("machineTypes"), Zones: list("zones"), Source: source}
}

// selectMinors is the offered minors the run tests, in the offer's order.
func selectMinors(offered, wanted []string) ([]string, error) {
	if len(offered) == 0 {
		return nil, errors.New("the environment offers no Kubernetes version")
	}
	if len(wanted) == 0 {
		return offered, nil
	}
	var out, missing []string
	for _, w := range wanted {
		if slices.Contains(offered, w) {
			out = append(out, w)
		} else {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("minors %s are not offered (offered: %s)", strings.Join(missing, ", "), strings.Join(offered, ", "))
	}
	return sortMinors(out), nil
}

func sortMinors(m []string) []string {
	sort.SliceStable(m, func(i, j int) bool {
		a, errA := model.ParseVersion(m[i])
		b, errB := model.ParseVersion(m[j])
		if errA != nil || errB != nil {
			return m[i] < m[j]
		}
		return a.Major < b.Major || (a.Major == b.Major && a.Minor < b.Minor)
	})
	return m
}
