package clusterstack

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Import describes a Cluster of a Cluster Stack in the portable API: the reverse of render.
//
// Every value comes from the Cluster. The environment only says what the Cluster's names
// mean, which the Cluster cannot: which topology variable is which portable field
// (data.clusterStack.variableNames, as Observe reads them), and which variables and labels
// are the environment's own (the names, not the values, of data.clusterStack.variables and
// clusterLabels). Anything else the Cluster carries is unportable. Of the settings, the
// Cluster does not show data.region (no field of it), managementCluster and namespace
// (where it lives, which its caller knows) nor variableNames (the names, not what they
// stand for): those are absent.
//
// What it read is then rendered as a request would render it and compared with the
// Cluster: where the render would change the Cluster, no portable spec describes it, and
// Import refuses it rather than let the first reconcile change a running cluster. So are a
// Cluster without a topology, of a ClusterClass that is not a Cluster Stack release's, or of
// a namespace the environment's releases are not in.
func (Backend) Import(natives []*unstructured.Unstructured, env *model.Environment) (*model.Imported, error) {
	u, err := nativeCluster(natives)
	if err != nil {
		return nil, err
	}
	if env.ClusterStack == nil {
		return nil, fmt.Errorf("environment %s has no clusterStack section to read Cluster %s/%s with", env.Name, u.GetNamespace(), u.GetName())
	}
	r, err := newReading(u, env)
	if err != nil {
		return nil, err
	}
	if errs := r.read(); len(errs) > 0 {
		return nil, refusal(errs)
	}
	settings, err := r.settingValues()
	if err != nil {
		return nil, err
	}
	unportable, errs, err := r.checkByRendering(settings)
	if err != nil {
		return nil, fmt.Errorf("the Cluster read back does not render: %w", err)
	}
	if len(errs) > 0 {
		return nil, refusal(errs)
	}
	return &model.Imported{Name: u.GetName(), Spec: r.spec, Settings: settings, Unportable: unportable}, nil
}

// nativeCluster is the one Cluster among the natives, in the version the backend renders:
// another version's fields (v1beta1's topology.class) would be read as missing.
func nativeCluster(natives []*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var found []*unstructured.Unstructured
	for _, u := range natives {
		if u != nil && strings.HasPrefix(u.GetAPIVersion(), "cluster.x-k8s.io/") && u.GetKind() == clusterKind {
			found = append(found, u)
		}
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("no Cluster API Cluster (%s) among the %d native objects", clusterAPIVersion, len(natives))
	case len(found) > 1:
		return nil, fmt.Errorf("%d Cluster API Clusters among the native objects, %s and %s; a cluster has one", len(found), found[0].GetName(), found[1].GetName())
	case found[0].GetAPIVersion() != clusterAPIVersion:
		return nil, fmt.Errorf("got Cluster %s/%s as %s; read it as %s, the version this backend renders",
			found[0].GetNamespace(), found[0].GetName(), found[0].GetAPIVersion(), clusterAPIVersion)
	}
	return found[0], nil
}

// refusal says why the Cluster cannot be managed, every problem at once, by the Cluster's
// field paths; the caller says which Cluster it read.
func refusal(errs field.ErrorList) error {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Paths of the Cluster that Import reads and names in its refusals.
var (
	topologyPath  = field.NewPath("spec", "topology")
	variablesPath = topologyPath.Child("variables")
	workersPath   = topologyPath.Child("workers", "machineDeployments")
)

// Paths of the settings Import reads from the Cluster (Backend.Settings, model.SettingsOf).
const (
	settingProvider         = "data.clusterStack.provider"
	settingStack            = "data.clusterStack.stack"
	settingStackVersion     = "data.clusterStack.stackVersion"
	settingVariables        = "data.clusterStack.variables"
	settingClusterLabels    = "data.clusterStack.clusterLabels"
	settingTaintPropagation = "data.clusterStack.taintPropagation"
	settingZones            = "data.catalog.zones"
	settingAlwaysAllowed    = "data.apiServerAccess.alwaysAllowedSourceRanges"
)

// reading is what Import has read of one Cluster.
type reading struct {
	env      *model.Environment
	cs       *envv1alpha1.ClusterStack
	cluster  *clusterv1.Cluster
	observed map[string]any // the Cluster as it exists, numbers as the render writes them
	class    stackClass
	spec     kaasv1alpha1.ClusterSpec
	// shown are the settings' values the Cluster shows, by Setting.Path, in the environment
	// contract's Go types.
	shown map[string]any
	errs  field.ErrorList
}

func newReading(u *unstructured.Unstructured, env *model.Environment) (*reading, error) {
	c := &clusterv1.Cluster{}
	if err := model.DecodeObserved(u.Object, c); err != nil {
		return nil, fmt.Errorf("cannot decode Cluster %s/%s as a %s Cluster: %w", u.GetNamespace(), u.GetName(), clusterAPIVersion, err)
	}
	observed, err := normalized(u.Object)
	if err != nil {
		return nil, fmt.Errorf("cannot read Cluster %s/%s as JSON: %w", u.GetNamespace(), u.GetName(), err)
	}
	return &reading{env: env, cs: env.ClusterStack, cluster: c, observed: observed.(map[string]any), shown: map[string]any{}}, nil
}

// read fills the spec and the settings the Cluster shows. The class and the version come
// first: without them nothing else can be rendered.
func (r *reading) read() field.ErrorList {
	if !r.readClass() {
		return r.errs
	}
	r.readControlPlane()
	r.readNetwork()
	r.readStaticVariables()
	r.readClusterLabels()
	r.readPools()
	r.readAccess()
	return r.errs
}

// stackClass is a ClusterClass name as the Cluster Stack operator gives it to a release:
// <provider>-<stack>-<major>-<minor>-<stack version>, such as openstack-scs2-1-34-v3.
type stackClass struct {
	provider, stack, stackVersion string
	minor                         model.Version
}

func parseClass(name string) (stackClass, bool) {
	parts := strings.SplitN(name, "-", 5)
	if len(parts) != 5 || parts[4] == "" {
		return stackClass{}, false
	}
	for _, n := range parts[:2] {
		if len(validation.IsDNS1123Label(n)) > 0 {
			return stackClass{}, false
		}
	}
	minor, err := model.ParseVersion(parts[2] + "." + parts[3])
	if err != nil || minor.Major != 1 {
		return stackClass{}, false
	}
	return stackClass{provider: parts[0], stack: parts[1], minor: minor, stackVersion: parts[4]}, true
}

// readClass reads the release the Cluster runs. The spec pins its Kubernetes patch and the
// settings its stack version: a release is one (minor, stack version) of a stack, and the
// render picks by those, so the same class and version come back whatever releases appear
// later. A minor alone would render the newest release instead, an upgrade.
func (r *reading) readClass() bool {
	t := &r.cluster.Spec.Topology
	if !t.IsDefined() {
		r.errs = append(r.errs, field.Required(topologyPath,
			"the Cluster has no managed topology, so it is not built from a ClusterClass; this API manages Clusters of Cluster Stack ClusterClasses only"))
		return false
	}
	classPath := topologyPath.Child("classRef")
	class, ok := parseClass(t.ClassRef.Name)
	if !ok {
		r.errs = append(r.errs, field.Invalid(classPath.Child("name"), t.ClassRef.Name,
			"is not the ClusterClass of a Cluster Stack release (<provider>-<stack>-<major>-<minor>-<stack version>, such as openstack-scs2-1-34-v3)"))
		return false
	}
	if ns := cmp.Or(t.ClassRef.Namespace, r.cluster.Namespace); ns != r.cs.Namespace {
		r.errs = append(r.errs, field.Invalid(classPath.Child("namespace"), ns, fmt.Sprintf(
			"environment %s renders ClusterClasses of namespace %s (data.clusterStack.namespace): rendering would move the Cluster to another class", r.env.Name, r.cs.Namespace)))
	}
	v, err := model.ParseVersion(t.Version)
	if err != nil || !v.HasPatch() || !v.SameMinor(class.minor) {
		r.errs = append(r.errs, field.Invalid(topologyPath.Child("version"), t.Version, fmt.Sprintf(
			"must be the Kubernetes version of ClusterClass %s: a patch of %s, such as v%s.3", t.ClassRef.Name, class.minor, class.minor)))
		return false
	}
	r.class = class
	r.spec.Kubernetes.Version = v.String()
	r.shown[settingProvider], r.shown[settingStack], r.shown[settingStackVersion] = class.provider, class.stack, class.stackVersion
	return true
}

// readControlPlane reads high availability from the replicas the render writes: 3 or 1.
func (r *reading) readControlPlane() {
	p := topologyPath.Child("controlPlane", "replicas")
	replicas := r.cluster.Spec.Topology.ControlPlane.Replicas
	switch {
	case replicas == nil:
		r.errs = append(r.errs, field.Required(p, "the control plane's size is its provider's default; the API renders 3 replicas (highAvailability) or 1"))
	case *replicas == 3 || *replicas == 1:
		r.spec.ControlPlane.HighAvailability = ptrTo(*replicas == 3)
		r.readControlPlaneZones(*replicas == 3)
	default:
		r.errs = append(r.errs, field.NotSupported(p, *replicas, []string{"1", "3"}))
	}
}

// readControlPlaneZones reads the zones a highly available control plane spreads over: the
// catalog's zones when it was rendered. A single machine spreads over nothing, so there the
// variable is not the render's.
func (r *reading) readControlPlaneZones(highlyAvailable bool) {
	v, p, ok := r.variable(envv1alpha1.VariableControlPlaneAvailabilityZones)
	if !highlyAvailable || !ok {
		return
	}
	var zones []string
	if r.decode(p, v.Value.Raw, &zones, "a list of zones") {
		r.shown[settingZones] = zones
	}
}

// readNetwork reads the ranges. CNI is Cilium: what every Cluster Stack ships, so saying so
// keeps an environment's other default from being warned about.
func (r *reading) readNetwork() {
	n := r.cluster.Spec.ClusterNetwork
	p := field.NewPath("spec", "clusterNetwork")
	r.spec.Network = &kaasv1alpha1.NetworkSpec{
		PodCIDR:     r.singleCIDR(p.Child("pods", "cidrBlocks"), n.Pods.CIDRBlocks),
		ServiceCIDR: r.singleCIDR(p.Child("services", "cidrBlocks"), n.Services.CIDRBlocks),
		CNI:         kaasv1alpha1.CNICilium,
	}
	if v, vp, ok := r.variable(envv1alpha1.VariableNodeCIDR); ok {
		r.decode(vp, v.Value.Raw, &r.spec.Network.NodeCIDR, "a CIDR")
	}
}

// singleCIDR is the one block of a range; the spec has no second (dual-stack) one.
func (r *reading) singleCIDR(p *field.Path, blocks []string) string {
	if len(blocks) > 1 {
		r.errs = append(r.errs, field.TooMany(p, len(blocks), 1))
		return ""
	}
	if len(blocks) == 0 {
		return ""
	}
	return blocks[0]
}

// readStaticVariables reads the values of the variables the environment sets: its names
// say which are its own, and the Cluster's values are the cluster's setting. A value the
// environment still names is written as the environment writes it, so that the setting
// differs from the environment's only where the value does.
func (r *reading) readStaticVariables() {
	values := map[string]json.RawMessage{}
	for _, v := range r.cluster.Spec.Topology.Variables {
		envRaw, own := r.cs.Variables[v.Name]
		if !own {
			continue
		}
		raw, err := canonicalJSON(v.Value.Raw)
		if err != nil {
			r.errs = append(r.errs, field.Invalid(variablesPath.Key(v.Name).Child("value"), string(v.Value.Raw), err.Error()))
			continue
		}
		if same, _ := canonicalJSON(envRaw); bytes.Equal(same, raw) {
			raw = envRaw
		}
		values[v.Name] = raw
	}
	r.shown[settingVariables] = values
}

// readClusterLabels reads the values of the labels the environment puts on Clusters.
func (r *reading) readClusterLabels() {
	labels := map[string]string{}
	for k := range r.cs.ClusterLabels {
		if v, ok := r.cluster.Labels[k]; ok {
			labels[k] = v
		}
	}
	r.shown[settingClusterLabels] = labels
}

// variable is the topology variable the environment maps a portable field to, if the
// Cluster has it.
func (r *reading) variable(portable string) (clusterv1.ClusterVariable, *field.Path, bool) {
	name := r.cs.VariableNames[portable]
	for _, v := range r.cluster.Spec.Topology.Variables {
		if name != "" && v.Name == name {
			return v, variablesPath.Key(name).Child("value"), true
		}
	}
	return clusterv1.ClusterVariable{}, nil, false
}

// decode reads a variable's JSON value into out, or says it is not what the field takes.
func (r *reading) decode(p *field.Path, raw []byte, out any, what string) bool {
	if err := json.Unmarshal(raw, out); err != nil {
		r.errs = append(r.errs, field.Invalid(p, string(raw), "must be "+what+", as the render writes it: "+err.Error()))
		return false
	}
	return true
}

// readPools groups the MachineDeployments by pool, in the order the render writes them.
func (r *reading) readPools() {
	var order []string
	byPool := map[string][]clusterv1.MachineDeploymentTopology{}
	for _, md := range r.cluster.Spec.Topology.Workers.MachineDeployments {
		pool, ok := r.poolOf(md)
		if !ok {
			continue
		}
		if _, seen := byPool[pool]; !seen {
			order = append(order, pool)
		}
		byPool[pool] = append(byPool[pool], md)
	}
	for _, name := range order {
		r.spec.NodePools = append(r.spec.NodePools, r.readPool(name, byPool[name]))
	}
	if _, tainted := r.shown[settingTaintPropagation]; !tainted {
		// No taint reaches the topology: whatever a spec says of taints renders none, as
		// when the feature gate is off, which a cluster read back keeps.
		r.shown[settingTaintPropagation] = false
	}
}

// poolOf is the pool a MachineDeployment belongs to: its pool label, or for one made outside
// this API, its name <pool>-<zone> (the render adds the label, which reaches no node).
func (r *reading) poolOf(md clusterv1.MachineDeploymentTopology) (string, bool) {
	p := workersPath.Key(md.Name)
	zone := md.FailureDomain
	if zone == "" {
		r.errs = append(r.errs, field.Required(p.Child("failureDomain"),
			"the API spreads a pool over zones, one MachineDeployment with its failure domain per zone; one without a zone cannot be rendered"))
		return "", false
	}
	pool := md.Metadata.Labels[model.LabelNodePool]
	if pool == "" {
		pool = poolOfName(md.Name, zone)
	}
	if pool == "" || model.PoolZoneName(pool, zone) != md.Name {
		r.errs = append(r.errs, field.Invalid(p.Child("name"), md.Name, fmt.Sprintf(
			"the API names the MachineDeployment of a pool in zone %s <pool>-<zone> (label %s names the pool): rendering would add another beside it", zone, model.LabelNodePool)))
		return "", false
	}
	return pool, true
}

// poolOfName reads the pool from a name model.PoolZoneName gave, or "".
func poolOfName(name, zone string) string {
	candidates := []string{strings.TrimSuffix(name, "-"+strings.ToLower(zone))}
	if i := strings.LastIndex(name, "-"); i > 0 {
		candidates = append(candidates, name[:i])
	}
	for _, pool := range candidates {
		if pool != name && model.PoolZoneName(pool, zone) == name {
			return pool
		}
	}
	return ""
}

// readPool reads a pool from its MachineDeployments: the zones from all, the rest from the
// first, since the render gives every zone the same; the check by rendering finds a zone
// that differs.
func (r *reading) readPool(name string, mds []clusterv1.MachineDeploymentTopology) kaasv1alpha1.NodePool {
	first := mds[0]
	p := workersPath.Key(first.Name)
	pool := kaasv1alpha1.NodePool{Name: name}
	for _, md := range mds {
		pool.Zones = append(pool.Zones, md.FailureDomain)
	}
	pool.MachineType = r.machineType(p, first)
	pool.RootDiskGiB = r.rootDisk(p, first)
	pool.Count, pool.Autoscaling = r.size(mds)
	pool.Labels = poolLabels(first.Metadata.Labels)
	for _, t := range first.Taints {
		pool.Taints = append(pool.Taints, kaasv1alpha1.Taint{Key: t.Key, Value: t.Value, Effect: kaasv1alpha1.TaintEffect(t.Effect)})
	}
	if len(pool.Taints) > 0 {
		// Taints reach the topology only with the feature gate: the Cluster shows it is on.
		r.shown[settingTaintPropagation] = true
	}
	pool.MaxSurge, pool.MaxUnavailable = rollout(first)
	return pool
}

// override is a MachineDeployment's override of the variable a portable field maps to.
func (r *reading) override(md clusterv1.MachineDeploymentTopology, portable string) (clusterv1.ClusterVariable, bool) {
	name := r.cs.VariableNames[portable]
	for _, v := range md.Variables.Overrides {
		if name != "" && v.Name == name {
			return v, true
		}
	}
	return clusterv1.ClusterVariable{}, false
}

// machineType is the flavor override, which the spec must name: without one the pool runs
// the ClusterClass's default flavor, and no spec renders that.
func (r *reading) machineType(p *field.Path, md clusterv1.MachineDeploymentTopology) string {
	op := p.Child("variables", "overrides")
	name := r.cs.VariableNames[envv1alpha1.VariableWorkerFlavor]
	v, ok := r.override(md, envv1alpha1.VariableWorkerFlavor)
	switch {
	case name == "":
		r.errs = append(r.errs, field.Forbidden(op, fmt.Sprintf(
			"environment %s maps no variable to the machine type (data.clusterStack.variableNames.%s), so the Cluster cannot say it, and the spec must name it",
			r.env.Name, envv1alpha1.VariableWorkerFlavor)))
	case !ok:
		r.errs = append(r.errs, field.Required(op.Key(name),
			"the pool runs the ClusterClass's default flavor, which the spec cannot name: every pool of the spec renders its machine type"))
	default:
		var flavor string
		r.decode(op.Key(name).Child("value"), v.Value.Raw, &flavor, "a flavor name")
		return flavor
	}
	return ""
}

func (r *reading) rootDisk(p *field.Path, md clusterv1.MachineDeploymentTopology) *int32 {
	v, ok := r.override(md, envv1alpha1.VariableWorkerRootDisk)
	if !ok {
		return nil
	}
	var gib int32
	if !r.decode(p.Child("variables", "overrides").Key(v.Name).Child("value"), v.Value.Raw, &gib, "a size in GiB") {
		return nil
	}
	return &gib
}

// size is the pool's count, the sum of the replicas, or its autoscaling, the sums of the
// autoscaler's bounds: how the render spreads them over the zones (model.ZoneShare).
func (r *reading) size(mds []clusterv1.MachineDeploymentTopology) (*int32, *kaasv1alpha1.Autoscaling) {
	if mds[0].Replicas != nil {
		var count int32
		for _, md := range mds {
			count += ptrOr(md.Replicas)
		}
		return &count, nil
	}
	a := &kaasv1alpha1.Autoscaling{}
	for _, md := range mds {
		p := workersPath.Key(md.Name).Child("metadata", "annotations")
		a.Min += r.bound(p, md.Metadata.Annotations, annotationAutoscalerMin)
		a.Max += r.bound(p, md.Metadata.Annotations, annotationAutoscalerMax)
	}
	return nil, a
}

// bound is one of the autoscaler's bounds: without replicas, the size is the autoscaler's.
func (r *reading) bound(p *field.Path, annotations map[string]string, key string) int32 {
	v, set := annotations[key]
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case !set:
		r.errs = append(r.errs, field.Required(p.Key(key),
			"a MachineDeployment without replicas needs both autoscaler bounds: its size is otherwise Cluster API's default, which the spec cannot name"))
	case err != nil:
		r.errs = append(r.errs, field.Invalid(p.Key(key), v, "must be a number of machines"))
	}
	return int32(n) // #nosec G115 -- ParseInt bounded it to 32 bits
}

func ptrOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// poolLabels are the MachineDeployment's labels that reach the nodes; its others the render
// does not set, and they stay unportable.
func poolLabels(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if hasNodeDomain(k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func rollout(md clusterv1.MachineDeploymentTopology) (maxSurge, maxUnavailable *intstr.IntOrString) {
	ru := md.Rollout.Strategy.RollingUpdate
	return ru.MaxSurge, ru.MaxUnavailable
}

// readAccess reads the issuer and the ranges from the variables access.go sets.
func (r *reading) readAccess() {
	access := &kaasv1alpha1.AccessSpec{}
	if v, p, ok := r.variable(envv1alpha1.VariableOIDCConfig); ok {
		var o oidcConfig
		if r.decode(p, v.Value.Raw, &o, "an oidcConfig") {
			access.OIDC = oidcSpec(o)
		}
	}
	if v, p, ok := r.variable(envv1alpha1.VariableAPIServerAllowedCIDRs); ok {
		var ranges []string
		if r.decode(p, v.Value.Raw, &ranges, "a list of CIDRs") {
			access.AllowedSourceRanges = r.teamRanges(ranges)
		}
	}
	if access.OIDC != nil || len(access.AllowedSourceRanges) > 0 {
		r.spec.Access = access
	}
}

// oidcSpec is the issuer with every claim and prefix explicit, so that no default of the
// spec's changes the flags. The groups prefix goes only with a groups claim, as in the spec.
func oidcSpec(o oidcConfig) *kaasv1alpha1.OIDCSpec {
	s := &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: o.IssuerURL, ClientID: o.ClientID,
		UsernameClaim: o.UsernameClaim, UsernamePrefix: ptrTo(model.UsernamePrefixOfFlag(o.UsernamePrefix)), GroupsClaim: o.GroupsClaim}}
	if o.GroupsClaim != "" {
		s.GroupsPrefix = ptrTo(o.GroupsPrefix)
	}
	return s
}

// teamRanges splits the ranges the variable holds: the render adds the environment's
// always-allowed ranges to the spec's, and the Cluster cannot say which were which. Those
// that the environment allows always are the setting, the others the spec's; a spec needs
// one range at least, else it renders none.
func (r *reading) teamRanges(ranges []string) []string {
	var always []string
	if a := r.env.APIServerAccess; a != nil {
		always = a.AlwaysAllowedSourceRanges
	}
	var platform, team []string
	for _, cidr := range ranges {
		if slices.Contains(always, cidr) {
			platform = append(platform, cidr)
		} else {
			team = append(team, cidr)
		}
	}
	r.shown[settingAlwaysAllowed] = platform
	if len(team) == 0 {
		return slices.Clone(ranges)
	}
	return team
}

// settingValues are the settings the Cluster shows, by path with {minor} resolved, as
// status.backend.pinned records them (model's getSetting): a string as it is, an empty value
// as "", anything else as JSON of the environment contract's type.
func (r *reading) settingValues() (map[string]string, error) {
	out := map[string]string{}
	for _, s := range model.SettingsOf(Backend{}) {
		v, shown := r.shown[s.Path]
		if !shown {
			continue
		}
		text, err := settingText(v)
		if err != nil {
			return nil, fmt.Errorf("setting %s cannot be written as status.backend.pinned records it: %w", s.Path, err)
		}
		out[strings.ReplaceAll(s.Path, "{minor}", r.class.minor.MinorString())] = text
	}
	return out, nil
}

// settingText is one value as model's getSetting writes it.
func settingText(v any) (string, error) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid() || rv.IsZero() || ((rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice) && rv.Len() == 0):
		return "", nil
	case rv.Kind() == reflect.String:
		return rv.String(), nil
	}
	raw, err := json.Marshal(v)
	return string(raw), err
}

// canonicalJSON is a variable's value with sorted keys, so that the setting reads the same
// however the Cluster was read; numbers keep their digits.
func canonicalJSON(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return json.Marshal(v)
}

// normalized is an object as JSON reads it with Kubernetes' numbers (int64 where integral),
// so that an object read from a cluster and one rendered compare by value.
func normalized(obj any) (any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out any
	if err := utiljson.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkByRendering renders what was read as a request would, in the environment with the
// settings read, and compares it with the Cluster: what the render would change is refused,
// what the Cluster has beyond it is unportable.
func (r *reading) checkByRendering(settings map[string]string) ([]model.Unsupported, field.ErrorList, error) {
	env, err := model.WithSettings(r.env, settings)
	if err != nil {
		return nil, nil, err
	}
	// A cluster read back records that it took nothing from the environment's defaults
	// (model's readBack, from a spec that says everything): none are filled in.
	spec := model.Default(r.spec, env, model.Defaulted(&r.spec, &r.spec))
	req := &model.Request{Cluster: &kaasv1alpha1.XSCSCluster{Spec: spec}, NativeName: r.cluster.Name, Environment: env}
	// Import writes no certificateAuthorityRef: nothing is required.
	if req.Access, err = model.ResolveAccess(req, nil); err != nil {
		return nil, nil, err
	}
	if errs := validateAccess(req); len(errs) > 0 {
		return nil, errs, nil
	}
	t := r.cluster.Spec.Topology
	c, _, err := buildCluster(req, release{Class: t.ClassRef.Name, KubernetesVersion: t.Version})
	if err != nil {
		return nil, nil, err
	}
	m, err := manifest(c)
	if err != nil {
		return nil, nil, err
	}
	rendered, err := normalized(m)
	if err != nil {
		return nil, nil, err
	}
	d := difference{env: env.Name}
	d.cluster(rendered.(map[string]any), r.observed)
	slices.SortFunc(d.unportable, func(a, b model.Unsupported) int { return strings.Compare(a.Field, b.Field) })
	return d.unportable, d.errs, nil
}

// difference compares the rendered Cluster with the Cluster as it exists, the way applying
// it works: a field the render writes must already have its value; one it does not write
// stays as it is, and is unportable. Named list entries (variables, MachineDeployments,
// overrides) are matched by name, as Cluster API's list types merge them; other lists are
// replaced whole.
type difference struct {
	env        string
	errs       field.ErrorList
	unportable []model.Unsupported
}

// Fields the render leaves to others by design: Cluster API fills in the endpoint and the
// references the topology controller creates; the model labels every object it composes.
var notRendered = map[string]bool{
	"spec.controlPlaneEndpoint":                    true,
	"spec.controlPlaneRef":                         true,
	"spec.infrastructureRef":                       true,
	"metadata.labels[" + model.LabelCluster + "]":  true,
	"metadata.labels[" + model.LabelIdentity + "]": true,
}

func (d *difference) cluster(rendered, observed map[string]any) {
	// The class's namespace depends on where the Cluster lives; readClass checked it.
	for _, m := range []map[string]any{rendered, observed} {
		unstructured.RemoveNestedField(m, "spec", "topology", "classRef", "namespace")
	}
	d.walk(field.NewPath("spec"), rendered["spec"], observed["spec"], false)
	d.walk(field.NewPath("metadata", "labels"), labelsOf(rendered), labelsOf(observed), false)
}

func labelsOf(obj map[string]any) map[string]any {
	if l, ok, _ := unstructured.NestedMap(obj, "metadata", "labels"); ok {
		return l
	}
	return map[string]any{}
}

// walk compares one field. Inside a variable's value (defaulted) the Cluster may have more
// than the render writes: the ClusterClass's defaults, which its webhook adds again.
func (d *difference) walk(p *field.Path, rendered, observed any, defaulted bool) {
	switch r := rendered.(type) {
	case map[string]any:
		o, ok := observed.(map[string]any)
		if !ok {
			d.changed(p, rendered, observed)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(r)) {
			ov, found := o[k]
			d.child(childPath(p, k), r[k], ov, found, defaulted)
		}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			if _, ok := r[k]; !ok && !defaulted {
				d.extra(childPath(p, k))
			}
		}
	case []any:
		if names, ok := entryNames(r); ok {
			d.walkNamed(p, r, names, observed)
			return
		}
		if !reflect.DeepEqual(rendered, observed) {
			d.changed(p, rendered, observed)
		}
	default:
		if !reflect.DeepEqual(rendered, observed) {
			d.changed(p, rendered, observed)
		}
	}
}

// child compares a field the render writes with the Cluster's, found or not.
func (d *difference) child(p *field.Path, rendered, observed any, found, defaulted bool) {
	switch {
	case found:
		d.walk(p, rendered, observed, defaulted || isVariableValue(p))
	case isEmpty(rendered), addedOnAdoption(p):
	default:
		d.errs = append(d.errs, field.Forbidden(p, fmt.Sprintf(
			"the Cluster does not set it, but rendering the imported spec in environment %s sets %s, and no portable spec leaves it out", d.env, shown(rendered))))
	}
}

// childPath names labels and annotations as keys, the way Kubernetes' messages do.
func childPath(p *field.Path, k string) *field.Path {
	if s := p.String(); strings.HasSuffix(s, ".labels") || strings.HasSuffix(s, ".annotations") {
		return p.Key(k)
	}
	return p.Child(k)
}

func (d *difference) walkNamed(p *field.Path, rendered []any, names []string, observed any) {
	o, _ := observed.([]any)
	byName := map[string]any{}
	if observedNames, ok := entryNames(o); ok {
		for i, n := range observedNames {
			byName[n] = o[i]
		}
	} else if len(o) > 0 {
		d.changed(p, rendered, observed)
		return
	}
	for i, n := range names {
		ov, found := byName[n]
		d.child(p.Key(n), rendered[i], ov, found, false)
		delete(byName, n)
	}
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		d.extra(p.Key(n))
	}
}

// entryNames are the names of a list's entries, if each is an object with a name.
func entryNames(list []any) ([]string, bool) {
	names := make([]string, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		name, named := m["name"].(string)
		if !ok || !named {
			return nil, false
		}
		names = append(names, name)
	}
	return names, len(list) > 0
}

func (d *difference) changed(p *field.Path, rendered, observed any) {
	d.errs = append(d.errs, field.Forbidden(p, fmt.Sprintf(
		"the Cluster has %s, but rendering the imported spec in environment %s sets %s, and no portable spec renders the Cluster's value", shown(observed), d.env, shown(rendered))))
}

func (d *difference) extra(p *field.Path) {
	if notRendered[p.String()] {
		return
	}
	d.unportable = append(d.unportable, model.Unsupported{Field: p.String(), Reason: unportableReason(p.String())})
}

func unportableReason(path string) string {
	const rest = "the portable spec cannot express it and rendering leaves it as it is, unmanaged"
	switch {
	case strings.Contains(path, ".variables["), strings.Contains(path, ".overrides["):
		return "a variable the render does not set (a ClusterClass default, or set outside this API): " + rest
	case strings.Contains(path, ".labels["), strings.Contains(path, ".annotations["):
		return "metadata the render does not set: " + rest
	}
	return "a field the render does not set: " + rest
}

// isVariableValue says whether p is the value of a topology variable or override.
func isVariableValue(p *field.Path) bool {
	s := p.String()
	return strings.HasSuffix(s, ".value") && (strings.Contains(s, ".variables[") || strings.Contains(s, ".overrides["))
}

// addedOnAdoption says whether the render may add the field to a Cluster made outside this
// API: the pool label of its MachineDeployments, which reaches no node.
func addedOnAdoption(p *field.Path) bool {
	return strings.HasSuffix(p.String(), ".metadata.labels["+model.LabelNodePool+"]")
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return v == nil
}

// shown is a value as a message shows it: JSON, cut short.
func shown(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const maxShown = 120
	if len(raw) > maxShown {
		return string(raw[:maxShown]) + "..."
	}
	return string(raw)
}
