package cli

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// fleetCluster is one cluster of the fleet report.
type fleetCluster struct {
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Environment string `json:"environment,omitempty"`
	Backend     string `json:"backend,omitempty"`
	Version     string `json:"version,omitempty"`
	Phase       string `json:"phase,omitempty"`
	// NextMinor is the minor the environment offers next; empty: none is offered.
	NextMinor string `json:"nextMinor,omitempty"`
	// NextUpdate is the update the cluster makes on its own (status.maintenance): rolling
	// now, or planned and when it may start; empty: none.
	NextUpdate string `json:"nextUpdate,omitempty"`
	// KubeconfigUntil is when the delivered kubeconfig expires, where it is known.
	KubeconfigUntil string `json:"kubeconfigUntil,omitempty"`
	// Due says what needs doing; empty: nothing.
	Due []string `json:"due,omitempty"`
	// EnvironmentMovedOn lists the values the cluster keeps although its environment
	// names others now (its EnvironmentUpToDate condition), whether or not --environment
	// counts them as due.
	EnvironmentMovedOn []string `json:"environmentMovedOn,omitempty"`
}

type fleetOptions struct {
	output      string
	due         bool
	within      int
	environment bool
	planned     bool
}

func (a *App) newFleetCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &fleetOptions{}
	cmd := &cobra.Command{
		Use:   "fleet [--due] [--within DAYS] [--planned]",
		Short: "List the SCSClusters of every namespace you can read, with what is due",
		Long: `List the SCSClusters of every namespace the user can read: namespace, name,
environment, backend, the version it runs, its phase, the minor its environment offers
next ("none": no upgrade path is offered), the update it makes on its own (NEXT UPDATE,
status.maintenance: "v1.34.7 -> v1.34.8 at" the time it may start, in its maintenance
window and wave, or "rolling v1.34.7 -> v1.34.8"), when its kubeconfig expires, and what is due:
its running minor no longer offered by its environment's catalog, deprecated, expired or
expiring within --within days (data.catalog.kubernetesVersionLifecycle), its
kubeconfig expired or expiring within --within days, an add-on failing (with Flux's
reason), or an add-on that left the environment's catalog and stays unmanaged.

A cluster whose environment moved on (its EnvironmentUpToDate condition is False: the
environment names other values than those the cluster keeps) says so in the ENVIRONMENT
column ("(moved on)") and lists the values in environmentMovedOn of -o json|yaml. With
--environment it is due as well ("environment moved on: data.x (keeps A, environment names
B)"), unless every value it keeps is one adopting cannot change (kept for good: a setting
that would replace the cluster, its network, the zones of a pool); kubectl scs upgrade NAME
--environment adopts the others.

--planned lists only the clusters with an update of their own planned or rolling; it makes
none due, since the cluster makes that update itself in its window.

--due exits 5 when any cluster listed is due, for a cron job or a CI pipeline. Without
--environment an edit of an environment makes no cluster due: it changes no cluster until
its owner adopts it.`,
		Example: `  kubectl scs fleet
  kubectl scs fleet --due --within 14 -o json
  kubectl scs fleet --environment --due
  kubectl scs fleet --planned --due`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output, outputYAML, outputJSON); err != nil {
				return err
			}
			if o.within < 0 {
				return usage("--within must be 0 or more days, not %d", o.within)
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			return a.fleet(cmd.Context(), c, o)
		},
	}
	cmd.Flags().BoolVar(&o.due, "due", false, "Exit 5 when any cluster is due")
	cmd.Flags().IntVar(&o.within, "within", 7, "Days ahead in which an expiring minor or kubeconfig is due")
	cmd.Flags().BoolVar(&o.environment, "environment", false, "Count a cluster whose environment moved on as due, unless it keeps only values adopting cannot change")
	cmd.Flags().BoolVar(&o.planned, "planned", false, "List only clusters with an update of their own planned or rolling (with --due: exit 5 when one of those is due)")
	addOutputFlag(cmd, &o.output, outputTable, outputYAML, outputJSON)
	return cmd
}

// minorDue says what is due about the minor a cluster runs: no longer offered, deprecated or
// expiring before horizon, from the lifecycle its status reports (status.offered.lifecycle);
// a cluster whose function predates that field is judged by the offered minors alone.
func minorDue(obj *unstructured.Unstructured, version string, now, horizon time.Time) []string {
	offered, _, _ := unstructured.NestedStringSlice(obj.Object, "status", "offered", "kubernetesVersions")
	life, found, _ := unstructured.NestedMap(obj.Object, "status", "offered", "lifecycle")
	if !found {
		v, err := model.ParseVersion(version)
		if err != nil || len(offered) == 0 || slices.Contains(offered, v.MinorString()) {
			return nil
		}
		return []string{fmt.Sprintf("minor %s no longer offered (offered: %s)", v.MinorString(), strings.Join(offered, ", "))}
	}
	minor, _, _ := unstructured.NestedString(life, "minor")
	if still, _, _ := unstructured.NestedBool(life, "offered"); !still {
		return []string{fmt.Sprintf("minor %s no longer offered (offered: %s)", minor, strings.Join(offered, ", "))}
	}
	var due []string
	if deprecated, _, _ := unstructured.NestedBool(life, "deprecated"); deprecated {
		due = append(due, "minor "+minor+" deprecated")
	}
	if s, _, _ := unstructured.NestedString(life, "expirationDate"); s != "" {
		expires, err := time.Parse(time.RFC3339, s)
		switch {
		case err != nil:
		case !now.Before(expires):
			due = append(due, "minor "+minor+" expired "+expires.UTC().Format(time.DateOnly))
		case expires.Before(horizon):
			due = append(due, "minor "+minor+" expires "+expires.UTC().Format(time.DateOnly))
		}
	}
	return due
}

// validUntil is how KubeconfigReady says until when a delivered kubeconfig is valid.
var validUntil = regexp.MustCompile(`valid until (\d{4}-\d\d-\d\dT[0-9:]+Z)`)

func (a *App) fleet(ctx context.Context, c *Clients, o *fleetOptions) error {
	list, err := c.clusters("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing %ss in every namespace: %w", kaasv1alpha1.ClaimKind, err)
	}
	now := a.Now()
	horizon := now.Add(time.Duration(o.within) * 24 * time.Hour)
	clusters := []fleetCluster{}
	due := 0
	for i := range list.Items {
		obj := &list.Items[i]
		f := fleetCluster{Namespace: obj.GetNamespace(), Name: obj.GetName(),
			Environment: str(obj, "status", "backend", "environment"), Backend: str(obj, "status", "backend", "type"),
			Version: str(obj, "status", "kubernetes", "version"), Phase: str(obj, "status", "phase"),
			NextMinor: str(obj, "status", "offered", "nextMinor"), NextUpdate: nextUpdate(obj)}
		// Left out before anything is judged: --due and the count answer for the clusters listed.
		if o.planned && f.NextUpdate == "" {
			continue
		}
		kubeconfig := model.ConditionOf(obj, kaasv1alpha1.ConditionKubeconfigReady)
		var until time.Time
		if m := validUntil.FindStringSubmatch(kubeconfig.Message); m != nil {
			f.KubeconfigUntil = m[1]
			until, _ = time.Parse(time.RFC3339, m[1])
		}
		f.Due = append(f.Due, minorDue(obj, f.Version, now, horizon)...)
		switch {
		case kubeconfig.Reason == kaasv1alpha1.ReasonKubeconfigExpired:
			f.Due = append(f.Due, "kubeconfig expired")
		case !until.IsZero() && until.Before(horizon) && !strings.Contains(kubeconfig.Message, model.KubeconfigRenewedNote):
			f.Due = append(f.Due, "kubeconfig expires "+f.KubeconfigUntil)
		}
		f.Due = append(f.Due, addonsDue(obj)...)
		if drift := environmentDrift(obj); len(drift) > 0 {
			adoptable := false
			items := make([]string, 0, len(drift))
			for _, d := range drift {
				items = append(items, d.String())
				adoptable = adoptable || !d.ForGood
			}
			f.EnvironmentMovedOn = items
			if o.environment && adoptable {
				f.Due = append(f.Due, "environment moved on: "+strings.Join(items, "; "))
			}
		}
		if len(f.Due) > 0 {
			due++
		}
		clusters = append(clusters, f)
	}
	sort.Slice(clusters, func(i, j int) bool {
		if clusters[i].Namespace != clusters[j].Namespace {
			return clusters[i].Namespace < clusters[j].Namespace
		}
		return clusters[i].Name < clusters[j].Name
	})
	if o.output != outputTable {
		if err := printValue(a.IO.Out, o.output, map[string]any{"clusters": clusters, "due": due}); err != nil {
			return err
		}
	} else {
		tw := newTable(a.IO.Out, "", "NAMESPACE", "NAME", "ENVIRONMENT", "BACKEND", "VERSION", "PHASE", "NEXT MINOR", "NEXT UPDATE", "KUBECONFIG UNTIL", "DUE")
		for _, f := range clusters {
			env := f.Environment
			if len(f.EnvironmentMovedOn) > 0 {
				env += " (moved on)"
			}
			tw.row(f.Namespace, f.Name, env, f.Backend, f.Version, f.Phase, orDefault(f.NextMinor, "none"),
				f.NextUpdate, f.KubeconfigUntil, strings.Join(f.Due, "; "))
		}
		if err := tw.flush(); err != nil {
			return err
		}
	}
	if o.due && due > 0 {
		return &dueError{n: due}
	}
	return nil
}

// nextUpdate says what the cluster updates on its own (status.maintenance): the update
// rolling now, then the one planned with the time it may start, as KUBECONFIG UNTIL says
// a time. Empty: none, or a function that predates status.maintenance.
func nextUpdate(obj *unstructured.Unstructured) string {
	var parts []string
	if from, to := str(obj, "status", "maintenance", "inProgress", "from"), str(obj, "status", "maintenance", "inProgress", "to"); to != "" {
		parts = append(parts, "rolling "+from+" -> "+to)
	}
	if from, to := str(obj, "status", "maintenance", "planned", "from"), str(obj, "status", "maintenance", "planned", "to"); to != "" {
		p := from + " -> " + to
		if at := str(obj, "status", "maintenance", "planned", "notBefore"); at != "" {
			p += " at " + at
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// addonsDue names the add-ons that fail (Flux's reason) and those the catalog dropped, which
// stay installed and unmanaged until their team disables them.
func addonsDue(obj *unstructured.Unstructured) []string {
	var due []string
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "addons")
	reason := model.ConditionOf(obj, kaasv1alpha1.ConditionAddonsReady).Reason
	for _, a := range list {
		m, _ := a.(map[string]any)
		switch name := fmt.Sprint(m["name"]); {
		case m["retained"] == true:
			due = append(due, "add-on "+name+" left the catalog")
		case m["ready"] != true:
			due = append(due, "add-on "+name+" failing ("+reason+")")
		}
	}
	return due
}
