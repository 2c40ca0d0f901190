package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func (a *App) newDescribeCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "describe NAME",
		Short: "Show one SCSCluster in detail: status, conditions, warnings, native objects, offers",
		Long: `Show one SCSCluster in detail: phase and versions, the backend and its native object
(status.backend.nativeRef), node pools as specified and as observed, every condition with
its reason, the fields the backend cannot honour (warnings), the updates the cluster makes
on its own (maintenance: its window, the update planned or rolling, a minor it was upgraded
to past its spec, the UpdatePlanned condition), what the environment offers
(status.offered) and keeps (status.defaulted), the composed resources where readable, and
the events.`,
		Example:           "  kubectl scs describe dev -n team1",
		Args:              args(1, 1, "exactly one NAME"),
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			obj, err := c.getCluster(cmd.Context(), c.Namespace, args[0])
			if err != nil {
				return err
			}
			return a.describe(cmd.Context(), c, obj)
		},
	}
}

func (a *App) describe(ctx context.Context, c *Clients, obj *unstructured.Unstructured) error {
	w := a.IO.Out
	f := c.detectFlavour(obj)
	field := func(label, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-16s%s\n", label+":", value)
		}
	}
	field("Name", obj.GetName())
	field("Namespace", obj.GetNamespace())
	composite := describeFlavour(f, obj)
	field("Flavour", composite)
	if ts := obj.GetCreationTimestamp(); !ts.IsZero() {
		field("Created", fmt.Sprintf("%s (%s ago)", ts.UTC().Format(time.RFC3339), duration.HumanDuration(a.Now().Sub(ts.Time))))
	}
	field("Purpose", orDefault(str(obj, "spec", "purpose"), string(kaasv1alpha1.PurposeDevelopment)+" (default)"))
	env := str(obj, "status", "backend", "environment")
	if asked := str(obj, "spec", "environment"); env == "" && asked != "" {
		env = asked + " (asked for, not pinned yet)"
	} else if env != "" && asked == "" {
		env += " (the platform's default when created)"
	}
	field("Environment", orDefault(env, "not chosen yet"))
	if t := str(obj, "status", "backend", "type"); t != "" {
		b := t
		if r := str(obj, "status", "backend", "region"); r != "" {
			b += ", region " + r
		}
		if n := str(obj, "status", "backend", "name"); n != "" {
			b += ", name " + n
		}
		field("Backend", b)
	}
	field("Native object", nativeRef(obj))
	field("Phase", orDefault(str(obj, "status", "phase"), "not reported yet"))
	k := "spec " + str(obj, "spec", "kubernetes", "version")
	if v := str(obj, "status", "kubernetes", "version"); v != "" {
		k += ", runs " + v
	}
	field("Kubernetes", k)
	field("API server", str(obj, "status", "apiServerURL"))
	field("Kubeconfig", kubeconfigLine(obj))
	field("Access", accessLine(obj))
	field("Deletion", deletionLine(obj))

	describePools(w, obj)
	describeAddons(w, obj)
	a.describeMaintenance(w, obj)
	describeConditions(w, obj)
	describeWarnings(w, obj)
	describeOffered(w, obj)
	describeDefaulted(w, obj)
	a.describeComposed(ctx, w, c, f, obj)
	a.describeEvents(ctx, w, c, obj)
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func describeFlavour(f flavour, obj *unstructured.Unstructured) string {
	switch f {
	case flavourLegacy:
		if xr := str(obj, "spec", "resourceRef", "name"); xr != "" {
			return fmt.Sprintf("claim of %s %s (legacy)", kaasv1alpha1.CompositeKind, xr)
		}
		return fmt.Sprintf("claim, not bound to an %s yet (legacy)", kaasv1alpha1.CompositeKind)
	case flavourNamespaced:
		return "namespaced composite (Crossplane v2)"
	}
	return "unknown (Crossplane has not reconciled it yet)"
}

func nativeRef(obj *unstructured.Unstructured) string {
	kind := str(obj, "status", "backend", "nativeRef", "kind")
	if kind == "" {
		return ""
	}
	name := str(obj, "status", "backend", "nativeRef", "name")
	if ns := str(obj, "status", "backend", "nativeRef", "namespace"); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %s (%s)", kind, name, str(obj, "status", "backend", "nativeRef", "apiVersion"))
}

func kubeconfigLine(obj *unstructured.Unstructured) string {
	secret := str(obj, "spec", "writeConnectionSecretToRef", "name")
	if secret == "" {
		return "none: spec.writeConnectionSecretToRef.name is not set"
	}
	line := "Secret " + obj.GetNamespace() + "/" + secret
	if c := model.ConditionOf(obj, kaasv1alpha1.ConditionKubeconfigReady); c.Status != "" {
		line += ", " + kaasv1alpha1.ConditionKubeconfigReady + " " + c.Status
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
	}
	return line
}

// accessLine says who may reach the API server as the backend's native object says it
// (status.access, docs/access.md): the issuer people sign in through, and the networks.
// Empty when the cluster reports neither.
func accessLine(obj *unstructured.Unstructured) string {
	access, found, _ := unstructured.NestedMap(obj.Object, "status", "access")
	if !found {
		return ""
	}
	var parts []string
	if issuer := str(obj, "status", "access", "oidc", "issuerURL"); issuer != "" {
		parts = append(parts, "sign-in through "+issuer+" (client "+str(obj, "status", "access", "oidc", "clientID")+"; kubectl scs kubeconfig --oidc)")
	}
	if ranges := fields.Strings(obj, "status", "access", "allowedSourceRanges"); len(ranges) > 0 {
		parts = append(parts, "API server open to "+strings.Join(ranges, ", "))
	} else if len(access) > 0 {
		parts = append(parts, "API server open to any network")
	}
	return strings.Join(parts, "; ")
}

// deletionLine says whether deletion protection is on and why, as the admission policy
// (package/deletion-protection.yaml) decides it, and what a deletion would do.
func deletionLine(obj *unstructured.Unstructured) string {
	var line string
	switch p, found, _ := unstructured.NestedBool(obj.Object, "spec", "deletionProtection"); {
	case found && p:
		line = "protected (spec.deletionProtection)"
	case found:
		line = "not protected (spec.deletionProtection false)"
	case str(obj, "spec", "purpose") == string(kaasv1alpha1.PurposeProduction):
		line = "protected (spec.deletionProtection, defaulted by purpose production)"
	default:
		line = "not protected"
	}
	if p := obj.GetAnnotations()[kaasv1alpha1.AnnotationDeletionPolicy]; p != "" {
		line += fmt.Sprintf("; annotation %s=%s", kaasv1alpha1.AnnotationDeletionPolicy, p)
	}
	if p := str(obj, "status", "backend", "deletionPolicy"); p != "" {
		line += "; deleting it now would " + map[string]string{
			string(kaasv1alpha1.DeletionDelete): "delete the cluster",
			string(kaasv1alpha1.DeletionOrphan): "leave the cluster running (Orphan)",
		}[p]
	}
	return line
}

// describePools joins each pool as specified with the pool as the backend observes it.
func describePools(w io.Writer, obj *unstructured.Unstructured) {
	specPools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
	statusPools, _, _ := unstructured.NestedSlice(obj.Object, "status", "nodePools")
	observed := map[string]map[string]any{}
	for _, p := range statusPools {
		if m, ok := p.(map[string]any); ok {
			observed[fmt.Sprint(m["name"])] = m
		}
	}
	fmt.Fprintln(w, "Node pools:")
	tw := newTable(w, "  ", "NAME", "MACHINE TYPE", "SIZE", "ZONES", "NODES", "READY", "PENDING")
	for _, p := range specPools {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		name := fmt.Sprint(m["name"])
		o := observed[name]
		size := ""
		if n, ok := m["count"]; ok {
			size = fmt.Sprintf("count %v", n)
		} else if as, ok := m["autoscaling"].(map[string]any); ok {
			size = fmt.Sprintf("autoscaling %v-%v", as["min"], as["max"])
		}
		zones := joinAny(m["zones"])
		if zones == "" {
			zones = joinAny(o["zones"])
		}
		tw.row(name, fmt.Sprint(m["machineType"]), size, zones, optional(o["replicas"]), optional(o["readyReplicas"]), optional(o["pending"]))
	}
	_ = tw.flush()
}

// describeAddons lists the add-ons as Flux reports them (status.addons), where the
// environment has a catalog.
func describeAddons(w io.Writer, obj *unstructured.Unstructured) {
	c := model.ConditionOf(obj, kaasv1alpha1.ConditionAddonsReady)
	if !c.Found {
		return
	}
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "addons")
	fmt.Fprintf(w, "Add-ons:        AddonsReady %s (%s)\n", c.Status, c.Reason)
	if len(list) == 0 {
		fmt.Fprintf(w, "  %s\n", c.Message)
		return
	}
	tw := newTable(w, "  ", "NAME", "READY", "REVISION", "MESSAGE")
	for _, a := range list {
		m, _ := a.(map[string]any)
		msg := optional(m["message"])
		if m["retained"] == true {
			msg = strings.TrimPrefix(msg+"; ", "; ") + "left the catalog: stays as it was until disabled"
		}
		tw.row(fmt.Sprint(m["name"]), fmt.Sprint(m["ready"] == true), optional(m["revision"]), msg)
	}
	_ = tw.flush()
}

// describeMaintenance shows the updates the cluster makes on its own (status.maintenance,
// docs/operations.md#maintenance): when they may start, what is planned or rolling, and a
// minor an end-of-life upgrade moved it to. Nothing when the cluster names no window and
// the function has not reported on it (or predates maintenance).
func (a *App) describeMaintenance(w io.Writer, obj *unstructured.Unstructured) {
	c := model.ConditionOf(obj, kaasv1alpha1.ConditionUpdatePlanned)
	_, reported, _ := unstructured.NestedMap(obj.Object, "status", "maintenance")
	window := specWindow(obj)
	if !c.Found && !reported && window == "" {
		return
	}
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-22s%s\n", label+":", value)
		}
	}
	fmt.Fprintln(w, "Maintenance:")
	if window == "" {
		window = orDefault(reportedWindow(c.Message, str(obj, "status", "maintenance", "planned", "message"),
			str(obj, "status", "maintenance", "inProgress", "message")), "none named: the function derives one from the cluster's identity")
	}
	line("Window", window)
	planned := str(obj, "status", "maintenance", "planned", "message")
	rolling := str(obj, "status", "maintenance", "inProgress", "message")
	switch {
	case planned != "":
		line("Planned", planned)
	case rolling == "":
		line("Planned", "none")
	}
	if rolling != "" {
		if ts, err := time.Parse(time.RFC3339, str(obj, "status", "maintenance", "inProgress", "started")); err == nil {
			rolling += fmt.Sprintf(", started %s (%s ago)", ts.UTC().Format(time.RFC3339), duration.HumanDuration(a.Now().Sub(ts)))
		}
	}
	line("In progress", rolling)
	if up := str(obj, "status", "maintenance", "upgradedMinor"); up != "" {
		line("Upgraded minor", fmt.Sprintf("%s, past its expired minor: spec.kubernetes.version still names %s; set it to %s (or newer) to make the spec say what runs",
			up, str(obj, "spec", "kubernetes", "version"), up))
	}
	if c.Found {
		cond := kaasv1alpha1.ConditionUpdatePlanned + " " + c.Status
		if c.Reason != "" {
			cond += " (" + c.Reason + ")"
		}
		// The message repeats the update shown above; without one it says why none is.
		if planned == "" && rolling == "" && c.Message != "" {
			cond += ": " + c.Message
		}
		line("Condition", cond)
	}
}

// specWindow is spec.maintenance.window in UTC, as the function reads it; the spec's own
// words where they do not parse. Empty: the spec names none.
func specWindow(obj *unstructured.Unstructured) string {
	begin, end := str(obj, "spec", "maintenance", "window", "begin"), str(obj, "spec", "maintenance", "window", "end")
	if begin == "" && end == "" {
		return ""
	}
	b, errB := model.ParseWindowTime(begin)
	e, errE := model.ParseWindowTime(end)
	if errB != nil || errE != nil {
		return begin + "-" + end + " (spec.maintenance.window)"
	}
	return model.Window{Begin: b, End: e}.String() + " (spec.maintenance.window)"
}

// windowInMessage is how the function names a cluster's window in the UpdatePlanned
// condition and in status.maintenance, with "(derived: ...)" where the cluster names none.
var windowInMessage = regexp.MustCompile(`in the window (\d\d:\d\d-\d\d:\d\d UTC(?: \(derived[^)]*\))?)`)

// reportedWindow is the window the first of messages names; empty: none does.
func reportedWindow(messages ...string) string {
	for _, m := range messages {
		if found := windowInMessage.FindStringSubmatch(m); found != nil {
			return found[1]
		}
	}
	return ""
}

func joinAny(v any) string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return strings.Join(out, ",")
}

func optional(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func describeConditions(w io.Writer, obj *unstructured.Unstructured) {
	conds := conditions(obj)
	fmt.Fprintln(w, "Conditions:")
	if len(conds) == 0 {
		fmt.Fprintln(w, "  none reported yet")
		return
	}
	tw := newTable(w, "  ", "TYPE", "STATUS", "REASON", "MESSAGE")
	for _, c := range conds {
		tw.row(c.Type, c.Status, c.Reason, c.Message)
	}
	_ = tw.flush()
}

// describeWarnings lists the fields the backend cannot honour, one a line, from the
// SpecSupported condition ("<field>: <what the backend does instead>; ...").
func describeWarnings(w io.Writer, obj *unstructured.Unstructured) {
	fmt.Fprintln(w, "Warnings:")
	c := model.ConditionOf(obj, kaasv1alpha1.ConditionSpecSupported)
	switch {
	case c.Status == "False" && c.Message != "":
		for _, m := range splitWarnings(c.Message) {
			fmt.Fprintf(w, "  %s\n", m)
		}
	case c.Status == "True":
		fmt.Fprintln(w, "  none: the backend honours every field that is set")
	default:
		fmt.Fprintln(w, "  not reported yet")
	}
}

// splitWarnings splits the SpecSupported message into its warnings: the function joins
// them with "; ", and each starts with the field's path, while a reason may hold "; " too.
func splitWarnings(msg string) []string {
	var out []string
	for _, part := range strings.Split(msg, "; ") {
		if len(out) > 0 && !strings.HasPrefix(part, "spec.") {
			out[len(out)-1] += "; " + part
			continue
		}
		out = append(out, part)
	}
	return out
}

func describeOffered(w io.Writer, obj *unstructured.Unstructured) {
	if _, found, _ := unstructured.NestedMap(obj.Object, "status", "offered"); !found {
		return
	}
	fmt.Fprintln(w, "Offered by the environment:")
	versions := strings.Join(fields.Strings(obj, "status", "offered", "kubernetesVersions"), ", ")
	if next := str(obj, "status", "offered", "nextMinor"); next != "" {
		versions += " (next minor for this cluster: " + next + ")"
	}
	fmt.Fprintf(w, "  %-22s%s\n", "Kubernetes versions:", orDefault(versions, "-"))
	fmt.Fprintf(w, "  %-22s%s\n", "Machine types:", orDefault(strings.Join(fields.Strings(obj, "status", "offered", "machineTypes"), ", "), "any the backend accepts"))
	fmt.Fprintf(w, "  %-22s%s\n", "Zones:", orDefault(strings.Join(fields.Strings(obj, "status", "offered", "zones"), ", "), "-"))
}

// describeDefaulted shows what the environment filled in when the cluster or a pool was
// created, which the cluster keeps (status.defaulted).
func describeDefaulted(w io.Writer, obj *unstructured.Unstructured) {
	d, found, _ := unstructured.NestedMap(obj.Object, "status", "defaulted")
	if !found || len(d) == 0 {
		return
	}
	fmt.Fprintln(w, "Kept from the environment (status.defaulted):")
	if n, ok := d["network"].(map[string]any); ok {
		var parts []string
		for _, k := range []string{"podCIDR", "serviceCIDR", "nodeCIDR", "cni"} {
			if v, ok := n[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %v", k, v))
			}
		}
		fmt.Fprintf(w, "  network: %s\n", strings.Join(parts, ", "))
	}
	pools, _ := d["nodePools"].([]any)
	for _, p := range pools {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		var parts []string
		if z := joinAny(m["zones"]); z != "" {
			parts = append(parts, "zones "+z)
		}
		if r, ok := m["rootDiskGiB"]; ok {
			parts = append(parts, fmt.Sprintf("rootDiskGiB %v", r))
		}
		fmt.Fprintf(w, "  pool %v: %s\n", m["name"], strings.Join(parts, ", "))
	}
}

// describeComposed lists what Crossplane composed for the cluster: the native objects as
// Crossplane's cluster holds them (the backend's own objects may live elsewhere, such as a
// Shoot in the garden). A legacy claim's list is on its composite, which tenants often may
// not read: then it says so.
func (a *App) describeComposed(ctx context.Context, w io.Writer, c *Clients, f flavour, obj *unstructured.Unstructured) {
	source := obj
	path := []string{"spec", "crossplane", "resourceRefs"}
	if f == flavourLegacy {
		xr := str(obj, "spec", "resourceRef", "name")
		if xr == "" {
			return
		}
		composite, err := c.Dynamic.Resource(compositeGVR).Get(ctx, xr, metav1.GetOptions{})
		if err != nil {
			fmt.Fprintf(w, "Composed resources:\n  not readable: %s %s: %s\n", kaasv1alpha1.CompositeKind, xr, reasonOf(err))
			return
		}
		source, path = composite, []string{"spec", "resourceRefs"}
	}
	refs, _, _ := unstructured.NestedSlice(source.Object, path...)
	if len(refs) == 0 {
		return
	}
	fmt.Fprintln(w, "Composed resources:")
	tw := newTable(w, "  ", "KIND", "NAME", "API VERSION")
	for _, r := range refs {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		name := fmt.Sprint(m["name"])
		if ns, ok := m["namespace"].(string); ok && ns != "" {
			name = ns + "/" + name
		}
		tw.row(fmt.Sprint(m["kind"]), name, fmt.Sprint(m["apiVersion"]))
	}
	_ = tw.flush()
}

// reasonOf says in a few words why a read failed.
func reasonOf(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden for your credentials"
	case apierrors.IsNotFound(err):
		return "not found"
	}
	return err.Error()
}

// describeEvents lists the cluster's events, oldest first, as kubectl describe does: the
// function's warnings for unsupported fields arrive here too.
func (a *App) describeEvents(ctx context.Context, w io.Writer, c *Clients, obj *unstructured.Unstructured) {
	list, err := c.Dynamic.Resource(eventGVR).Namespace(obj.GetNamespace()).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + obj.GetName() + ",involvedObject.kind=" + obj.GetKind(),
	})
	if err != nil {
		fmt.Fprintf(w, "Events:\n  not readable: %s\n", reasonOf(err))
		return
	}
	type event struct {
		typ, reason, from, message string
		at                         time.Time
	}
	var events []event
	for i := range list.Items {
		e := &list.Items[i]
		if str(e, "involvedObject", "name") != obj.GetName() || str(e, "involvedObject", "kind") != obj.GetKind() {
			continue
		}
		ev := event{typ: str(e, "type"), reason: str(e, "reason"), message: str(e, "message"),
			from: orDefault(str(e, "source", "component"), str(e, "reportingComponent"))}
		for _, f := range []string{"lastTimestamp", "eventTime", "firstTimestamp"} {
			if t, err := time.Parse(time.RFC3339, str(e, f)); err == nil {
				ev.at = t
				break
			}
		}
		events = append(events, ev)
	}
	if len(events) == 0 {
		fmt.Fprintln(w, "Events:         <none>")
		return
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	fmt.Fprintln(w, "Events:")
	tw := newTable(w, "  ", "TYPE", "REASON", "AGE", "FROM", "MESSAGE")
	for _, e := range events {
		age := ""
		if !e.at.IsZero() {
			age = duration.HumanDuration(a.Now().Sub(e.at))
		}
		tw.row(e.typ, e.reason, age, e.from, e.message)
	}
	_ = tw.flush()
}
