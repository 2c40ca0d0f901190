package magnum

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Import describes a Magnum cluster that exists in the portable API, from its ClusterV1 and
// NodegroupV1s: the reverse of render.
//
// It reads every field as provider-openstack reports it (status.atProvider: what Magnum
// runs), and as it was asked for (spec.forProvider) only where the report has no such
// field, as for the region and mergeLabels, which Magnum does not return. While a cluster
// is adopted its managed resources are composed observe-only from today's environment, so
// their spec.forProvider is that guess, not the cluster.
//
// Refused, naming each field, is a cluster no spec renders back: managing it would change
// what Magnum can change only with a new cluster or node group (ForceNew), or what the spec
// cannot say at all:
//   - natives of another kind, of two clusters, of a cluster Magnum has not created yet or
//     one being deleted;
//   - names this API does not derive from the cluster's: it would compose a second cluster;
//   - a control plane of other than one or three nodes, or three without a load balancer;
//   - mergeLabels or the autoscaler off: rendering always turns both on;
//   - a node group without an availability zone or of another role than worker, and node
//     groups of one pool that differ in flavor or disk, or whose sizes are not the pool's
//     divided over its zones as the spec divides them;
//   - access labels rendering would write otherwise: an issuer without its client or
//     claims, an empty username prefix, ranges out of order or with no load balancer to
//     enforce them;
//   - values the spec cannot hold (a CIDR out of canonical form, a root disk out of range);
//   - a value left out where the environment's defaults would fill one in: the spec cannot
//     say "none", so rendering would add it.
//
// Unportable are what rendering leaves as it is: Magnum labels this API does not set (the
// cluster template's, or set by hand) and spec.forProvider fields it never writes.
//
// Where the natives carry a spec's value and a setting's together, the environment's
// current value of the setting tells them apart, since nothing else records it: a label
// whose key data.magnum.labels names is the platform's (with the cluster's value), and the
// ranges of data.apiServerAccess.alwaysAllowedSourceRanges the cluster has are that
// setting's. The spec's purpose and environment are left out: the natives do not say them,
// and what the purpose would default (high availability, deletion protection) is explicit.
func (Backend) Import(natives []*unstructured.Unstructured, env *model.Environment) (*model.Imported, error) {
	cluster, groups, err := readNatives(natives)
	if err != nil {
		return nil, err
	}
	im := newImporter(env, cluster, groups)
	im.readIdentity()
	im.readPlacement()
	im.readTemplate()
	im.readControlPlane()
	im.readClusterSettings()
	im.readNetwork()
	im.readAccess()
	im.readPools()
	im.readProtection()
	// Last of the labels: what no field of the spec took is the platform's or unportable.
	im.readPlatformLabels()
	im.readUnrenderedFields()
	im.checkDefaults()
	if len(im.refusals) > 0 {
		return nil, fmt.Errorf("cannot import %s: %s", cluster, strings.Join(im.refusals, "; "))
	}
	return &im.out, nil
}

// The settings Import reads back, by their paths in Settings.
const (
	settingRegion             = "data.region"
	settingScope              = "data.magnum.scope"
	settingNamespace          = "data.magnum.namespace"
	settingProviderConfigName = "data.magnum.providerConfigName"
	settingProviderConfigKind = "data.magnum.providerConfigKind"
	settingTemplate           = "data.magnum.templates[kubernetesVersion={minor}]"
	settingKeypair            = "data.magnum.keypair"
	settingMasterFlavor       = "data.magnum.masterFlavor"
	settingFloatingIP         = "data.magnum.floatingIPEnabled"
	settingMasterLB           = "data.magnum.masterLBEnabled"
	settingFixedNetwork       = "data.magnum.fixedNetwork"
	settingFixedSubnet        = "data.magnum.fixedSubnet"
	settingLabels             = "data.magnum.labels"
	settingAlwaysAllowed      = "data.apiServerAccess.alwaysAllowedSourceRanges"
)

// annotationExternalName is where Crossplane keeps the name provider-openstack knows a
// managed resource by: for a ClusterV1, the Magnum cluster's UUID.
const annotationExternalName = "crossplane.io/external-name"

// importedDefaultPool names the pool of the default node group of a ClusterV1 made without
// this API, which has no AnnotationDefaultPool.
const importedDefaultPool = "default"

// renderedFields are the spec.forProvider fields rendering writes, by kind; others are left
// as they are.
var renderedFields = map[string][]string{
	kindCluster: {"name", "region", "clusterTemplateId", "flavor", "masterCount", "masterLbEnabled", "labels", "mergeLabels",
		"keypair", "masterFlavor", "fixedNetwork", "fixedSubnet", "floatingIpEnabled", "dockerVolumeSize", "nodeCount"},
	kindNodegroup: {"clusterId", "name", "region", "flavorId", "role", "labels", "dockerVolumeSize", "nodeCount", "minNodeCount", "maxNodeCount"},
}

// readNatives finds the ClusterV1 and its NodegroupV1s, the node groups sorted by name.
func readNatives(natives []*unstructured.Unstructured) (native, []native, error) {
	var clusters, groups []native
	for i, u := range natives {
		switch {
		case u == nil:
			return native{}, nil, fmt.Errorf("natives[%d] is empty", i)
		case !isRenderedKind(u):
			return native{}, nil, fmt.Errorf("natives[%d] is a %s %s: a Magnum cluster is provider-openstack's %s and its %ss (%s/%s, or %s/%s when namespaced)",
				i, u.GetAPIVersion(), u.GetKind(), kindCluster, kindNodegroup, groupCluster, version, groupNamespaced, version)
		case u.GetKind() == kindCluster:
			clusters = append(clusters, native{u})
		default:
			groups = append(groups, native{u})
		}
	}
	switch len(clusters) {
	case 0:
		return native{}, nil, fmt.Errorf("natives hold no %s: it is the Magnum cluster, the NodegroupV1s only its further node groups", kindCluster)
	case 1:
	default:
		return native{}, nil, fmt.Errorf("natives hold %s and %s: the natives of one Magnum cluster hold one ClusterV1", clusters[0], clusters[1])
	}
	slices.SortFunc(groups, func(a, b native) int { return strings.Compare(a.obj.GetName(), b.obj.GetName()) })
	return clusters[0], groups, nil
}

func isRenderedKind(u *unstructured.Unstructured) bool {
	a := u.GetAPIVersion()
	return (a == groupCluster+"/"+version || a == groupNamespaced+"/"+version) && (u.GetKind() == kindCluster || u.GetKind() == kindNodegroup)
}

// native is a managed resource read back.
type native struct{ obj *unstructured.Unstructured }

func (n native) String() string {
	if ns := n.obj.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %s/%s", n.obj.GetKind(), ns, n.obj.GetName())
	}
	return n.obj.GetKind() + " " + n.obj.GetName()
}

// field is a parameter as provider-openstack reports it, else as it was asked for, with the
// path it was read at (status.atProvider's when neither has it).
func (n native) field(name string) (any, string) {
	for _, at := range []string{"status.atProvider.", "spec.forProvider."} {
		path := at + name
		if v, ok, _ := unstructured.NestedFieldNoCopy(n.obj.Object, strings.Split(path, ".")...); ok && v != nil {
			return v, path
		}
	}
	return nil, "status.atProvider." + name
}

// importer reads one cluster back: what it found so far, and every refusal.
type importer struct {
	env     *model.Environment
	magnum  envv1alpha1.Magnum // env's section, empty without one
	cluster native
	groups  []native
	// labels are the ClusterV1's Magnum labels.
	labels *labelSet
	// tpl is the cluster template, known once readTemplate found it.
	tpl      envv1alpha1.MagnumTemplate
	ha, lb   bool
	firstOf  map[string]group // each pool's first node group, for refusals of the pool
	out      model.Imported
	refusals []string
}

func newImporter(env *model.Environment, cluster native, groups []native) *importer {
	im := &importer{env: env, cluster: cluster, groups: groups, firstOf: map[string]group{},
		out: model.Imported{Settings: map[string]string{}}}
	if env.Magnum != nil {
		im.magnum = *env.Magnum
	}
	im.labels = im.labelsOf(cluster)
	return im
}

// refuse records why the cluster cannot be managed: the field of a native and what is wrong
// with it. The ClusterV1's fields go without its name, which the error starts with.
func (im *importer) refuse(n native, path, format string, args ...any) {
	msg := path + " " + fmt.Sprintf(format, args...)
	if n.obj != im.cluster.obj {
		msg = n.String() + ": " + msg
	}
	im.refusals = append(im.refusals, msg)
}

func (im *importer) unportable(n native, path, reason string) {
	im.out.Unportable = append(im.out.Unportable, model.Unsupported{Field: n.String() + ": " + path, Reason: reason})
}

// setting records a setting's value as status.backend.pinned holds it.
func (im *importer) setting(path, value string) {
	im.out.Settings[strings.ReplaceAll(path, "{minor}", im.tpl.KubernetesVersion)] = value
}

func (im *importer) str(n native, name string) (string, string) {
	v, path := n.field(name)
	s, ok := v.(string)
	if v != nil && !ok {
		im.refuse(n, path, "is %v, not a string", v)
	}
	return s, path
}

func (im *importer) boolean(n native, name string) (*bool, string) {
	v, path := n.field(name)
	if v == nil {
		return nil, path
	}
	b, ok := v.(bool)
	if !ok {
		im.refuse(n, path, "is %v, not a boolean", v)
		return nil, path
	}
	return &b, path
}

// count reads a whole number that fits an int32, such as a node count; nil when not set.
func (im *importer) count(n native, name string) (*int32, string) {
	v, path := n.field(name)
	if v == nil {
		return nil, path
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		im.refuse(n, path, "is %v, not a whole number of at least 0", v)
		return nil, path
	}
	return ptrTo(int32(f)), path
}

// required is a string parameter rendering always writes, which must be there.
func (im *importer) required(n native, name, what string) string {
	v, path := im.str(n, name)
	if v == "" {
		im.refuse(n, path, "is not set: it is %s, which rendering writes", what)
	}
	return v
}

// labelSet is a native's Magnum labels. Each read for a field of the spec takes its key,
// so that what is left is the platform's or unportable.
type labelSet struct {
	values map[string]string
	path   string
	taken  map[string]bool
}

func (im *importer) labelsOf(n native) *labelSet {
	v, path := n.field("labels")
	l := &labelSet{values: map[string]string{}, path: path, taken: map[string]bool{}}
	if v == nil {
		return l
	}
	m, ok := v.(map[string]any)
	if !ok {
		im.refuse(n, path, "is %v, not a map of Magnum labels", v)
		return l
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		if !ok {
			im.refuse(n, l.at(k), "is %v, not a string", m[k])
			continue
		}
		l.values[k] = s
	}
	return l
}

func (l *labelSet) take(k string) (string, bool) {
	l.taken[k] = true
	v, ok := l.values[k]
	return v, ok
}

func (l *labelSet) at(k string) string { return l.path + "[" + k + "]" }

// rest are the labels no field took, sorted.
func (l *labelSet) rest() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l.values)) {
		if !l.taken[k] {
			out = append(out, k)
		}
	}
	return out
}

// readIdentity reads the cluster's name and id, and checks that every object is named as
// this API names it and belongs to the cluster: another name would compose a second
// object, and with it a second cluster or node group.
func (im *importer) readIdentity() {
	c := im.cluster
	if c.obj.GetDeletionTimestamp() != nil {
		im.refuse(c, "metadata.deletionTimestamp", "is set: the cluster is being deleted")
	}
	name, path := im.str(c, "name")
	if name == "" {
		im.refuse(c, path, "is not set: the Magnum cluster's name is the cluster's name in the backend")
	}
	im.out.Name = name
	if want := clusterObjectName(name); name != "" && c.obj.GetName() != want {
		im.refuse(c, "metadata.name", "is not %s: this API names the ClusterV1 of Magnum cluster %s after it, as every name it derives, and would compose another one",
			want, name)
	}
	if l := c.obj.GetLabels()[model.LabelCluster]; l != "" && l != name {
		im.refuse(c, "metadata.labels["+model.LabelCluster+"]", "is %s, not the Magnum cluster's name %s", l, name)
	}
	id := c.obj.GetAnnotations()[annotationExternalName]
	if id == "" {
		id, _ = im.str(c, "id")
	}
	if id == "" {
		im.refuse(c, "metadata.annotations["+annotationExternalName+"]", "is not set, nor status.atProvider.id: Magnum has not created the cluster yet, so there is nothing to import")
		return
	}
	for _, g := range im.groups {
		if gid, path := im.str(g, "clusterId"); gid != id {
			im.refuse(g, path, "is %q: the node group belongs to another Magnum cluster than %s (%s)", gid, c, id)
		}
	}
}

// readPlacement reads where the cluster lives: its region, the managed resources' scope and
// namespace, the ProviderConfig with the credentials. Rendering gives every managed
// resource of a cluster the same, so the node groups must agree with the ClusterV1.
func (im *importer) readPlacement() {
	c := im.cluster
	region := im.required(c, "region", "the environment's region")
	ref := providerConfigOf(c)
	if ref.name == "" {
		im.refuse(c, "spec.providerConfigRef.name", "is not set: it is the environment's ProviderConfig, which rendering writes")
	}
	im.setting(settingRegion, region)
	im.setting(settingScope, im.scope())
	im.setting(settingNamespace, c.obj.GetNamespace())
	im.setting(settingProviderConfigName, ref.name)
	im.setting(settingProviderConfigKind, ref.kind)
	for _, g := range im.groups {
		if g.obj.GetAPIVersion() != c.obj.GetAPIVersion() || g.obj.GetNamespace() != c.obj.GetNamespace() {
			im.refuse(g, "apiVersion", "is %s in namespace %q, the ClusterV1 %s in %q: rendering puts a cluster's managed resources together",
				g.obj.GetAPIVersion(), g.obj.GetNamespace(), c.obj.GetAPIVersion(), c.obj.GetNamespace())
		}
		if r := providerConfigOf(g); r != ref {
			im.refuse(g, "spec.providerConfigRef", "is %s, the ClusterV1's %s: rendering gives a cluster's managed resources one ProviderConfig", r, ref)
		}
		if r, path := im.str(g, "region"); r != region {
			im.refuse(g, path, "is %q, the ClusterV1's %q: rendering puts a cluster's node groups into its region", r, region)
		}
	}
}

// scope is data.magnum.scope as the natives' API group says it. Cluster-scoped kinds take
// the environment's spelling of it, "" or Cluster, which mean the same: a cluster read back
// differs from its environment in no spelling alone.
func (im *importer) scope() string {
	switch {
	case strings.HasPrefix(im.cluster.obj.GetAPIVersion(), groupNamespaced+"/"):
		return string(envv1alpha1.MagnumScopeNamespaced)
	case im.magnum.Scope == envv1alpha1.MagnumScopeCluster:
		return string(envv1alpha1.MagnumScopeCluster)
	}
	return ""
}

type providerConfig struct{ name, kind string }

func (p providerConfig) String() string { return strings.TrimSpace(p.kind + " " + p.name) }

func providerConfigOf(n native) providerConfig {
	name, _, _ := unstructured.NestedString(n.obj.Object, "spec", "providerConfigRef", "name")
	kind, _, _ := unstructured.NestedString(n.obj.Object, "spec", "providerConfigRef", "kind")
	return providerConfig{name, kind}
}

// readTemplate reads the cluster template and with it the spec's version: its minor, by
// which the environment selects the template. The environment's own description of the
// template (its patch, its network driver) is taken where it still offers that template;
// otherwise the cluster says what it can: the version Magnum runs, and calico where the
// cluster has a calico pod network.
func (im *importer) readTemplate() {
	c := im.cluster
	id := im.required(c, "clusterTemplateId", "the cluster template of the cluster's minor")
	if id == "" {
		return
	}
	coe := managed(c).atProviderString("coeVersion")
	minor := minorOfCOE(coe)
	tpl, ok := offeredTemplate(im.magnum.Templates, id, minor)
	if !ok {
		if minor == "" {
			im.refuse(c, "status.atProvider.coeVersion", "is not reported, and environment %s has no cluster template %s: the cluster's Kubernetes minor is unknown", im.env.Name, id)
			return
		}
		tpl = envv1alpha1.MagnumTemplate{KubernetesVersion: minor, ID: id, KubeTag: coe}
		if _, calico := im.labels.values[labelCalicoPool]; calico {
			tpl.NetworkDriver = string(kaasv1alpha1.CNICalico)
		}
	}
	im.tpl = tpl
	im.setting(settingTemplate, jsonSetting(tpl))
	im.out.Spec.Kubernetes.Version = tpl.KubernetesVersion
}

// offeredTemplate is the environment's template with the id: of the minor Magnum reports if
// it has one there, else of any minor, since Magnum reports the old minor while it upgrades.
func offeredTemplate(templates []envv1alpha1.MagnumTemplate, id, minor string) (envv1alpha1.MagnumTemplate, bool) {
	var found []envv1alpha1.MagnumTemplate
	for _, t := range templates {
		if t.ID == id {
			found = append(found, t)
		}
	}
	if i := slices.IndexFunc(found, func(t envv1alpha1.MagnumTemplate) bool { return t.KubernetesVersion == minor }); i >= 0 {
		return found[i], true
	}
	if len(found) > 0 {
		return found[0], true
	}
	return envv1alpha1.MagnumTemplate{}, false
}

// minorOfCOE is the minor of the version Magnum reports (v1.34.3, with any suffix); "" when
// it reports none.
func minorOfCOE(coe string) string {
	parts := strings.SplitN(strings.TrimPrefix(coe, "v"), ".", 3)
	if len(parts) < 2 {
		return ""
	}
	v, err := model.ParseVersion(parts[0] + "." + parts[1])
	if err != nil {
		return ""
	}
	return v.MinorString()
}

// readControlPlane reads high availability from the control plane's size. Rendering puts a
// load balancer in front of every highly available control plane, and in front of a single
// node as data.magnum.masterLBEnabled says, which is all that node's load balancer tells.
func (im *importer) readControlPlane() {
	c := im.cluster
	masters, path := im.count(c, "masterCount")
	lb, lbPath := im.boolean(c, "masterLbEnabled")
	im.lb = lb != nil && *lb
	switch {
	case masters == nil:
		im.refuse(c, path, "is not reported: the size of the control plane is unknown")
	case *masters == 1:
		im.setting(settingMasterLB, boolSetting(im.lb))
	case *masters == 3:
		im.ha = true
		if !im.lb {
			im.refuse(c, lbPath, "is not true with three control plane nodes: this API puts a load balancer in front of every highly available control plane, and Magnum cannot add one in place")
		}
	default:
		im.refuse(c, path, "is %d: the spec has one control plane node (highAvailability false) or three (true)", *masters)
	}
	im.out.Spec.ControlPlane.HighAvailability = ptrTo(im.ha)
}

// readClusterSettings reads the settings of data.magnum the ClusterV1 carries as parameters,
// and refuses a cluster without merged labels: rendering merges them (or the cluster's
// labels would replace the template's, kube_tag too), and Magnum cannot change that in place.
func (im *importer) readClusterSettings() {
	c := im.cluster
	for _, s := range []struct{ setting, name string }{{settingKeypair, "keypair"}, {settingMasterFlavor, "masterFlavor"},
		{settingFixedNetwork, "fixedNetwork"}, {settingFixedSubnet, "fixedSubnet"}} {
		v, _ := im.str(c, s.name)
		im.setting(s.setting, v)
	}
	fip, _ := im.boolean(c, "floatingIpEnabled")
	im.setting(settingFloatingIP, jsonSetting(fip))
	if merge, path := im.boolean(c, "mergeLabels"); merge == nil || !*merge {
		im.refuse(c, path, "is not true: rendering merges the cluster's labels with the template's, and Magnum cannot change that in place")
	}
}

// readNetwork reads the pod and service networks from their labels, and the network plugin
// from the template. A calico pool on a template the environment says is not calico was
// not rendered: it stays as it is.
func (im *importer) readNetwork() {
	c, l := im.cluster, im.labels
	var n kaasv1alpha1.NetworkSpec
	if pod, ok := l.values[labelCalicoPool]; ok {
		l.take(labelCalicoPool)
		if im.tpl.NetworkDriver == string(kaasv1alpha1.CNICalico) {
			n.PodCIDR = im.cidr(c, l.at(labelCalicoPool), pod)
		} else {
			im.unportable(c, l.at(labelCalicoPool), fmt.Sprintf("environment %s does not name calico the cluster template's network driver (it names %q), and this API sets a pod network for calico only: rendering leaves it as it is",
				im.env.Name, im.tpl.NetworkDriver))
		}
	}
	if svc, ok := l.take(labelServiceClusterIPs); ok {
		n.ServiceCIDR = im.cidr(c, l.at(labelServiceClusterIPs), svc)
	}
	if d := kaasv1alpha1.CNI(im.tpl.NetworkDriver); d == kaasv1alpha1.CNICalico || d == kaasv1alpha1.CNICilium {
		n.CNI = d
	}
	if n != (kaasv1alpha1.NetworkSpec{}) {
		im.out.Spec.Network = &n
	}
}

// cidr is a network as the spec holds it: in canonical form.
func (im *importer) cidr(n native, path, v string) string {
	if p, err := netip.ParsePrefix(v); err != nil || p.Masked().String() != v {
		im.refuse(n, path, "is %q, not a CIDR in canonical form such as 10.100.0.0/16: the spec cannot hold it", v)
		return ""
	}
	return v
}

// readAccess reads who may reach the API server from the labels accessLabels writes.
func (im *importer) readAccess() {
	a := kaasv1alpha1.AccessSpec{OIDC: im.readOIDC(), AllowedSourceRanges: im.readSourceRanges()}
	if a.OIDC != nil || len(a.AllowedSourceRanges) > 0 {
		im.out.Spec.Access = &a
	}
}

// readOIDC reads the issuer, every claim and prefix explicit as accessLabels writes them:
// issuer, client, username claim and prefix always, the groups prefix with its claim.
func (im *importer) readOIDC() *kaasv1alpha1.OIDCSpec {
	c, l := im.cluster, im.labels
	values, set, found := map[string]string{}, map[string]bool{}, false
	for _, k := range accessLabelKeys {
		if k != labelAllowedCIDRs {
			values[k], set[k] = l.take(k)
			found = found || set[k]
		}
	}
	if !found {
		return nil
	}
	for _, k := range []string{labelOIDCIssuerURL, labelOIDCClientID, labelOIDCUsernameClaim} {
		if values[k] == "" {
			im.refuse(c, l.at(k), "is not set beside the other oidc_* labels: rendering writes them together and would add it, which Magnum cannot do in place")
		}
	}
	switch {
	case !set[labelOIDCUsernamePrefix]:
		im.refuse(c, l.at(labelOIDCUsernamePrefix), `is not set beside the other oidc_* labels: rendering writes it ("-" for no prefix) and would add it, which Magnum cannot do in place`)
	case values[labelOIDCUsernamePrefix] == "":
		im.refuse(c, l.at(labelOIDCUsernamePrefix), `is empty, which kube-apiserver reads as prefixing every name but an email with the issuer URL: the spec cannot say that (rendering writes "-" for no prefix), and Magnum cannot change the label in place`)
	}
	if set[labelOIDCGroupsClaim] != set[labelOIDCGroupsPrefix] || (set[labelOIDCGroupsClaim] && values[labelOIDCGroupsClaim] == "") {
		im.refuse(c, l.at(labelOIDCGroupsClaim), "and %s go together, the claim not empty: rendering writes both or neither, and Magnum cannot change labels in place", labelOIDCGroupsPrefix)
	}
	o := &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: values[labelOIDCIssuerURL], ClientID: values[labelOIDCClientID],
		UsernameClaim: values[labelOIDCUsernameClaim], UsernamePrefix: ptrTo(model.UsernamePrefixOfFlag(values[labelOIDCUsernamePrefix]))}}
	if set[labelOIDCGroupsClaim] {
		o.GroupsClaim, o.GroupsPrefix = values[labelOIDCGroupsClaim], ptrTo(values[labelOIDCGroupsPrefix])
	}
	return o
}

// readSourceRanges reads the ranges that may reach the API server. Rendering writes the
// spec's ranges with the environment's always-allowed ones; those of the environment the
// cluster has are its value of that setting, the rest the spec's (all of them, when that
// leaves none: rendering adds the always-allowed ranges only beside the spec's own).
func (im *importer) readSourceRanges() []string {
	c, l := im.cluster, im.labels
	v, ok := l.take(labelAllowedCIDRs)
	if !ok {
		return nil
	}
	path := l.at(labelAllowedCIDRs)
	ranges := strings.Split(v, ",")
	for _, r := range ranges {
		if im.cidr(c, path, r) == "" {
			return nil
		}
	}
	if want := strings.Join(slices.Compact(slices.Sorted(slices.Values(ranges))), ","); v != want {
		im.refuse(c, path, "is %q: rendering writes the ranges sorted, each once (%q), and Magnum cannot change the label in place", v, want)
	}
	if !im.ha && !im.lb {
		im.refuse(c, path, "restricts the API server, but its single control plane node has no load balancer to enforce it: this API refuses ranges there")
	}
	var always []string
	if p := im.env.APIServerAccess; p != nil {
		always = p.AlwaysAllowedSourceRanges
	}
	platform := slices.DeleteFunc(slices.Clone(always), func(r string) bool { return !slices.Contains(ranges, r) })
	im.setting(settingAlwaysAllowed, jsonSetting(platform))
	team := slices.DeleteFunc(slices.Clone(ranges), func(r string) bool { return slices.Contains(platform, r) })
	if len(team) == 0 {
		return ranges
	}
	return team
}

// group is a Magnum node group read back: one pool's share in one zone.
type group struct {
	native     native
	pool, zone string
	zonePath   string
	flavor     string
	rootDisk   *int32
	// autoscaled says whether the group says so itself: the ClusterV1 by its labels, a
	// NodegroupV1 by a maximum (an autoscaled pool's share of it may be 0).
	autoscaled bool
	count      *int32 // the nodes it runs, a fixed pool's share
	min, max   int32
	sizePath   string // where its share of the pool's size was read
}

// readPools reads the pools from the node groups: the ClusterV1's pool first, as its first
// zone, then the others by name.
func (im *importer) readPools() {
	first := im.defaultGroup()
	byPool := map[string][]group{first.pool: {first}}
	for _, n := range im.groups {
		g := im.nodegroup(n)
		byPool[g.pool] = append(byPool[g.pool], g)
	}
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(byPool)), func(p string) bool { return p == first.pool })
	for _, name := range append([]string{first.pool}, others...) {
		im.out.Spec.NodePools = append(im.out.Spec.NodePools, im.pool(name, byPool[name], name == first.pool))
	}
}

// defaultGroup reads the ClusterV1's node group: autoscaled by its labels, fixed by its
// node count. Rendering turns Magnum's autoscaler on for every cluster, so that a fixed pool
// can become autoscaled; Magnum cannot turn it on in place.
func (im *importer) defaultGroup() group {
	c, l := im.cluster, im.labels
	if v, ok := l.take(labelAutoscaling); v != "true" {
		what := fmt.Sprintf("is %q", v)
		if !ok {
			what = "is not set"
		}
		im.refuse(c, l.at(labelAutoscaling), "%s: this API always turns Magnum's autoscaler on (fixed sizes go to nodeCount), and Magnum cannot change the label in place", what)
	}
	poolPath := "metadata.annotations[" + AnnotationDefaultPool + "]"
	g := group{native: c, pool: cmp.Or(c.obj.GetAnnotations()[AnnotationDefaultPool], importedDefaultPool)}
	im.checkPoolName(c, poolPath, g.pool)
	g.zone, g.zonePath = im.zone(c, l), l.at(labelAvailabilityZone)
	g.flavor = im.required(c, "flavor", "the machine type of the first node pool")
	g.rootDisk = im.rootDisk(c)
	min, hasMin := l.take(labelMinNodes)
	max, hasMax := l.take(labelMaxNodes)
	switch {
	case hasMin && hasMax:
		g.autoscaled, g.sizePath = true, l.at(labelMinNodes)+" and "+labelMaxNodes
		g.min, g.max = im.labelCount(c, labelMinNodes, min), im.labelCount(c, labelMaxNodes, max)
	case hasMin, hasMax:
		im.refuse(c, l.at(labelMinNodes), "and %s go together: the autoscaler needs both bounds, and rendering would add the missing one, which Magnum cannot do in place", labelMaxNodes)
	default:
		g.count, g.sizePath = im.count(c, "nodeCount")
	}
	return g
}

// labelCount is a node count label as rendering writes it: a whole number, no more.
func (im *importer) labelCount(c native, k, v string) int32 {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != v {
		im.refuse(c, im.labels.at(k), "is %q: rendering writes a whole number of nodes, and Magnum cannot change the label in place", v)
		return 0
	}
	return int32(n) // #nosec G115 -- ParseInt parsed it into 32 bits
}

// nodegroup reads a NodegroupV1, checking that it is named as this API names the node group
// of its pool and zone, and is a worker group.
func (im *importer) nodegroup(n native) group {
	l := im.labelsOf(n)
	g := group{native: n, zone: im.zone(n, l), zonePath: l.at(labelAvailabilityZone)}
	for _, k := range l.rest() {
		im.unportable(n, l.at(k), "a Magnum label of the node group this API does not set: rendering leaves it as it is")
	}
	name, namePath := im.str(n, "name")
	g.pool = im.poolOf(n, name, g.zone)
	if want := model.PoolZoneName(g.pool, g.zone); name != want {
		im.refuse(n, namePath, "is %q: this API names the node group of pool %s in zone %s %s, and a node group cannot be renamed", name, g.pool, g.zone, want)
	}
	if want := im.out.Name + "-" + name; n.obj.GetName() != want {
		im.refuse(n, "metadata.name", "is not %s: this API names a NodegroupV1 after the cluster and the node group, and would compose another one", want)
	}
	if role, path := im.str(n, "role"); role != "" && role != "worker" {
		im.refuse(n, path, "is %q: this API makes worker node groups, and Magnum cannot change a node group's role in place", role)
	}
	g.flavor = im.required(n, "flavorId", "the machine type of its pool")
	g.rootDisk = im.rootDisk(n)
	var countPath string
	g.count, countPath = im.count(n, "nodeCount")
	min, _ := im.count(n, "minNodeCount")
	max, maxPath := im.count(n, "maxNodeCount")
	g.min, g.max = deref(min), deref(max)
	g.autoscaled, g.sizePath = g.max > 0, countPath
	if g.autoscaled {
		g.sizePath = strings.TrimSuffix(maxPath, "maxNodeCount") + "minNodeCount and maxNodeCount"
	}
	return g
}

func deref(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}

// poolOf is the pool of a node group: its label, or for one made without this API, what its
// name <pool>-<zone> says.
func (im *importer) poolOf(n native, name, zone string) string {
	path := "metadata.labels[" + model.LabelNodePool + "]"
	if p := n.obj.GetLabels()[model.LabelNodePool]; p != "" {
		im.checkPoolName(n, path, p)
		return p
	}
	for _, p := range []string{strings.TrimSuffix(name, "-"+strings.ToLower(zone)), name[:max(strings.LastIndex(name, "-"), 0)]} {
		if p != "" && model.PoolZoneName(p, zone) == name {
			im.checkPoolName(n, path, p)
			return p
		}
	}
	im.refuse(n, path, "is not set, and the node group's name %q is not <pool>-<zone>: its pool is unknown", name)
	return name
}

func (im *importer) checkPoolName(n native, path, pool string) {
	if len(validation.IsDNS1123Label(pool)) > 0 || len(pool) > model.MaxNodePoolName {
		im.refuse(n, path, "is %q, which is no node pool name (a DNS label of at most %d characters)", pool, model.MaxNodePoolName)
	}
}

// zone is a node group's availability zone. Every pool of the spec names its zones, so a
// node group without one would be rendered with a label Magnum cannot add in place.
func (im *importer) zone(n native, l *labelSet) string {
	z, ok := l.take(labelAvailabilityZone)
	if !ok || z == "" {
		im.refuse(n, l.at(labelAvailabilityZone), "is not set: every node pool names its zones, so rendering would add the label, which Magnum cannot do in place")
	}
	return z
}

// rootDisk is a node group's Docker volume in GiB; none (0) is the image's disk.
func (im *importer) rootDisk(n native) *int32 {
	d, path := im.count(n, "dockerVolumeSize")
	if d == nil || *d == 0 {
		return nil
	}
	if *d < model.MinRootDiskGiB || *d > model.MaxRootDiskGiB {
		im.refuse(n, path, "is %d GiB: the spec's root disks have %d to %d", *d, model.MinRootDiskGiB, model.MaxRootDiskGiB)
	}
	return d
}

// pool makes a node pool of its node groups: one machine type and disk, autoscaled or
// fixed, its size their sum, its zones in the order that divides that size as they hold it.
func (im *importer) pool(name string, groups []group, hasDefault bool) kaasv1alpha1.NodePool {
	im.firstOf[name] = groups[0]
	out := kaasv1alpha1.NodePool{Name: name, MachineType: groups[0].flavor, RootDiskGiB: groups[0].rootDisk}
	for _, g := range groups[1:] {
		if g.flavor != out.MachineType {
			_, path := g.native.field("flavorId")
			im.refuse(g.native, path, "is %q, but %s of the same pool %s runs %q: a pool has one machine type, and Magnum cannot change a node group's flavor in place",
				g.flavor, groups[0].native, name, out.MachineType)
		}
		if deref(g.rootDisk) != deref(out.RootDiskGiB) {
			_, path := g.native.field("dockerVolumeSize")
			im.refuse(g.native, path, "is %d, but %s of the same pool %s has %d: a pool has one root disk, and Magnum cannot change a node group's in place",
				deref(g.rootDisk), groups[0].native, name, deref(out.RootDiskGiB))
		}
	}
	autoscaled := slices.ContainsFunc(groups, func(g group) bool { return g.autoscaled })
	if hasDefault && autoscaled && !groups[0].autoscaled {
		im.refuse(im.cluster, groups[0].sizePath, "is the fixed size of pool %s, whose other node groups are autoscaled: a pool is one or the other", name)
		return out
	}
	orderByShare(groups, hasDefault, autoscaled)
	for i, g := range groups {
		if slices.ContainsFunc(groups[:i], func(o group) bool { return o.zone == g.zone }) {
			im.refuse(g.native, g.zonePath, "is %s, a zone pool %s has another node group in: the spec has one node group per pool and zone", g.zone, name)
		}
		out.Zones = append(out.Zones, g.zone)
	}
	if autoscaled {
		min := im.divided(name, groups, "minimum", func(g group) *int32 { return &g.min })
		max := im.divided(name, groups, "maximum", func(g group) *int32 { return &g.max })
		out.Autoscaling = &kaasv1alpha1.Autoscaling{Min: min, Max: max}
	} else {
		out.Count = ptrTo(im.divided(name, groups, "size", func(g group) *int32 { return g.count }))
	}
	return out
}

// orderByShare puts the groups with the larger share of the pool first, as model.ZoneShare
// gives the remainder to the first zones; the default group stays first, where rendering
// puts it. Equal shares go by zone.
func orderByShare(groups []group, hasDefault, autoscaled bool) {
	share := func(g group) []int32 {
		if autoscaled {
			return []int32{g.min, g.max}
		}
		return []int32{deref(g.count)}
	}
	rest := groups
	if hasDefault {
		rest = groups[1:]
	}
	slices.SortStableFunc(rest, func(a, b group) int {
		return cmp.Or(slices.Compare(share(b), share(a)), strings.Compare(a.zone, b.zone))
	})
}

// divided is the pool's size (or bound) the groups hold, when they hold it as the spec
// divides it over the zones; rendering would resize them otherwise.
func (im *importer) divided(pool string, groups []group, what string, share func(group) *int32) int32 {
	var total int64
	for _, g := range groups {
		s := share(g)
		if s == nil {
			im.refuse(g.native, g.sizePath, "is not reported: the %s of pool %s in zone %s is unknown", what, pool, g.zone)
			return 0
		}
		total += int64(*s)
	}
	if total > model.MaxPoolSize {
		im.refuse(groups[0].native, groups[0].sizePath, "adds up to a %s of %d for pool %s: the spec's pools have at most %d nodes", what, total, pool, model.MaxPoolSize)
		return 0
	}
	size := int32(total) // #nosec G115 -- at most MaxPoolSize, checked above
	for i, g := range groups {
		if want := model.ZoneShare(size, len(groups), i); *share(g) != want {
			im.refuse(g.native, g.sizePath, "holds %d in zone %s of the %s %d of pool %s: the spec divides a pool evenly over its zones, the first ones taking the remainder (%d here), so rendering would change it",
				*share(g), g.zone, what, total, pool, want)
			return size
		}
	}
	return size
}

// readProtection reads deletion protection from how the ClusterV1 is deleted: rendering
// makes a protected cluster's managed resources Orphan, or for namespaced kinds, which have
// no deletion policy, takes Delete from their policies. An observe-only ClusterV1 (one being
// adopted) says nothing of it.
func (im *importer) readProtection() {
	u := im.cluster.obj
	policies, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "managementPolicies")
	if slices.Equal(policies, []string{"Observe"}) {
		return
	}
	var protected bool
	if strings.HasPrefix(u.GetAPIVersion(), groupNamespaced+"/") {
		protected = len(policies) > 0 && !slices.Contains(policies, "Delete") && !slices.Contains(policies, "*")
	} else {
		policy, _, _ := unstructured.NestedString(u.Object, "spec", "deletionPolicy")
		protected = policy == "Orphan"
	}
	im.out.Spec.DeletionProtection = &protected
}

// readPlatformLabels reads the labels no field of the spec took: those data.magnum.labels
// names are the platform's, with the cluster's values; the environment is the only record
// of which labels are the platform's. The others rendering leaves as they are.
func (im *importer) readPlatformLabels() {
	platform := map[string]string{}
	for _, k := range im.labels.rest() {
		if _, ok := im.magnum.Labels[k]; ok {
			platform[k] = im.labels.values[k]
			continue
		}
		im.unportable(im.cluster, im.labels.at(k), "a Magnum label this API does not set (the cluster template's, or set by hand): rendering leaves it as it is")
	}
	im.setting(settingLabels, jsonSetting(platform))
}

// readUnrenderedFields lists the parameters asked of provider-openstack that rendering
// never writes: they stay as they are.
func (im *importer) readUnrenderedFields() {
	for _, n := range append([]native{im.cluster}, im.groups...) {
		fp, _, _ := unstructured.NestedFieldNoCopy(n.obj.Object, "spec", "forProvider")
		asked, _ := fp.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(asked)) {
			if !slices.Contains(renderedFields[n.obj.GetKind()], k) {
				im.unportable(n, "spec.forProvider."+k, "a parameter this API does not set: rendering leaves it as it is")
			}
		}
	}
}

// checkDefaults refuses a value the natives leave out where the environment's defaults fill
// one in: the spec cannot say "none", so rendering would add it, and Magnum cannot add a
// label or a Docker volume in place.
func (im *importer) checkDefaults() {
	if len(im.refusals) > 0 {
		return
	}
	spec := im.out.Spec
	d := model.Default(spec, im.env, nil)
	c, l := im.cluster, im.labels
	given := kaasv1alpha1.NetworkSpec{}
	if spec.Network != nil {
		given = *spec.Network
	}
	if given.ServiceCIDR == "" && d.Network.ServiceCIDR != "" {
		im.refuseDefault(c, l.at(labelServiceClusterIPs), "spec.network.serviceCIDR", d.Network.ServiceCIDR, "data.defaults.network.serviceCIDR")
	}
	if given.PodCIDR == "" && d.Network.PodCIDR != "" && im.tpl.NetworkDriver == string(kaasv1alpha1.CNICalico) {
		im.refuseDefault(c, l.at(labelCalicoPool), "spec.network.podCIDR", d.Network.PodCIDR, "data.defaults.network.podCIDR")
	}
	for i, p := range spec.NodePools {
		if p.RootDiskGiB == nil && d.NodePools[i].RootDiskGiB != nil {
			_, path := im.firstOf[p.Name].native.field("dockerVolumeSize")
			im.refuseDefault(im.firstOf[p.Name].native, path, fmt.Sprintf("spec.nodePools[%d].rootDiskGiB", i), fmt.Sprint(*d.NodePools[i].RootDiskGiB), "data.defaults.rootDiskGiB")
		}
	}
	access := kaasv1alpha1.AccessSpec{}
	if spec.Access != nil {
		access = *spec.Access
	}
	if access.OIDC == nil && d.Access != nil && d.Access.OIDC != nil {
		im.refuseDefault(c, l.at(labelOIDCIssuerURL), "spec.access.oidc", d.Access.OIDC.IssuerURL, "data.defaults.access.oidc")
	}
	if len(access.AllowedSourceRanges) == 0 && d.Access != nil && len(d.Access.AllowedSourceRanges) > 0 {
		im.refuseDefault(c, l.at(labelAllowedCIDRs), "spec.access.allowedSourceRanges", strings.Join(d.Access.AllowedSourceRanges, ","), "data.defaults.access.allowedSourceRanges")
	}
}

func (im *importer) refuseDefault(n native, path, field, value, setting string) {
	im.refuse(n, path, "is not set, and environment %s fills %s in with %s (%s): the spec cannot say none, so rendering would add it, which Magnum cannot do in place",
		im.env.Name, field, value, setting)
}

// boolSetting is a bool setting as status.backend.pinned holds it: false is unset.
func boolSetting(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// jsonSetting is a setting that is no string as status.backend.pinned holds it: JSON, or ""
// for nil and empty.
func jsonSetting[T any](v T) string {
	raw, err := json.Marshal(v)
	if err != nil || string(raw) == "null" || string(raw) == "{}" || string(raw) == "[]" {
		return ""
	}
	return string(raw)
}
