package model

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Limits of the portable API, as the XRD's (TestLimitsMatchTheXRD), for what bypasses the
// API server: crossplane render, a CLI, objects stored before a rule existed.
const (
	MaxNodePools       = 32
	MaxNodePoolName    = 15
	MaxPoolSize        = 1000
	MaxZonesPerPool    = 8
	MaxLabelsPerPool   = 32
	MaxTaintsPerPool   = 16
	MinRootDiskGiB     = 10
	MaxRootDiskGiB     = 16384
	MinMaintenanceTime = 30 * time.Minute
	MaxMaintenanceTime = 6 * time.Hour
)

// Validate checks a defaulted spec against the API's rules and the environment's catalog,
// every problem at once. A value the cluster has (by current, its status; nil when new)
// stays accepted when the catalog drops it: a catalog edit applies to new choices only.
func Validate(spec *kaasv1alpha1.ClusterSpec, env *Environment, current *kaasv1alpha1.ClusterStatus) field.ErrorList {
	p := field.NewPath("spec")
	var errs field.ErrorList

	if msgs := validation.IsDNS1123Label(spec.Environment); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("environment"), spec.Environment, strings.Join(msgs, "; ")))
	}
	purposes := []string{string(kaasv1alpha1.PurposeEvaluation), string(kaasv1alpha1.PurposeDevelopment), string(kaasv1alpha1.PurposeProduction)}
	if !slices.Contains(purposes, string(spec.Purpose)) {
		errs = append(errs, field.NotSupported(p.Child("purpose"), spec.Purpose, purposes))
	}
	has := existing{current}
	errs = append(errs, validateVersion(p.Child("kubernetes", "version"), spec.Kubernetes.Version, env, has)...)
	errs = append(errs, validateNodePools(p.Child("nodePools"), spec.NodePools, env, has)...)
	errs = append(errs, validateNetwork(p.Child("network"), spec.Network)...)
	errs = append(errs, validateMaintenance(p.Child("maintenance"), spec.Maintenance)...)
	errs = append(errs, validateHibernation(p.Child("hibernation"), spec.Hibernation)...)
	errs = append(errs, validateAddons(p.Child("addons"), spec.Addons, env, current)...)
	return errs
}

func validateVersion(p *field.Path, version string, env *Environment, has existing) field.ErrorList {
	v, err := ParseVersion(version)
	if err != nil || v.Major != 1 {
		return field.ErrorList{field.Invalid(p, version, "must be a Kubernetes minor such as 1.34 or a patch such as 1.34.2")}
	}
	if !slices.Contains(env.Catalog.KubernetesVersions, v.MinorString()) && !has.minor(v) {
		return field.ErrorList{field.NotSupported(p, version, env.Catalog.KubernetesVersions)}
	}
	return nil
}

func validateNodePools(p *field.Path, pools []kaasv1alpha1.NodePool, env *Environment, has existing) field.ErrorList {
	var errs field.ErrorList
	if len(pools) == 0 {
		errs = append(errs, field.Required(p, "a cluster needs at least one node pool"))
	}
	if len(pools) > MaxNodePools {
		errs = append(errs, field.TooMany(p, len(pools), MaxNodePools))
	}
	seen := map[string]bool{}
	for i, pool := range pools {
		pp := p.Index(i)
		if seen[pool.Name] {
			errs = append(errs, field.Duplicate(pp.Child("name"), pool.Name))
		}
		seen[pool.Name] = true
		errs = append(errs, validateNodePool(pp, &pool, env, has)...)
	}
	return append(errs, validateNodeGroupNames(p, pools)...)
}

// validateNodeGroupNames refuses pools and zones whose node groups would share a name
// (PoolZoneName: a in b-c and a-b in c), where one would overwrite or delete the other's.
func validateNodeGroupNames(p *field.Path, pools []kaasv1alpha1.NodePool) field.ErrorList {
	var errs field.ErrorList
	type group struct{ pool, zone string }
	byName := map[string]group{}
	for i, pool := range pools {
		for j, zone := range pool.Zones {
			name := PoolZoneName(pool.Name, zone)
			other, clash := byName[name]
			switch {
			case !clash:
				byName[name] = group{pool.Name, zone}
			case other == group{pool.Name, zone}:
				// Reported as a duplicate already.
			case other.pool == pool.Name:
				errs = append(errs, field.Invalid(p.Index(i).Child("zones").Index(j), zone, fmt.Sprintf(
					"zones %s and %s of pool %s would both be named %s in the backend; name each zone once", other.zone, zone, pool.Name, name)))
			default:
				errs = append(errs, field.Invalid(p.Index(i).Child("name"), pool.Name, fmt.Sprintf(
					"pool %s in zone %s and pool %s in zone %s would both be named %s in the backend; rename one of the pools", other.pool, other.zone, pool.Name, zone, name)))
			}
		}
	}
	return errs
}

func validateNodePool(p *field.Path, pool *kaasv1alpha1.NodePool, env *Environment, has existing) field.ErrorList {
	var errs field.ErrorList
	if msgs := validation.IsDNS1123Label(pool.Name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("name"), pool.Name, strings.Join(msgs, "; ")))
	} else if len(pool.Name) > MaxNodePoolName {
		errs = append(errs, field.TooLong(p.Child("name"), pool.Name, MaxNodePoolName))
	}

	switch {
	case pool.MachineType == "":
		errs = append(errs, field.Required(p.Child("machineType"), "name a machine type (flavor) such as SCS-4V-8"))
	case len(env.Catalog.MachineTypes) > 0 && !slices.Contains(env.Catalog.MachineTypes, pool.MachineType) && !has.machineType(pool.Name, pool.MachineType):
		errs = append(errs, field.NotSupported(p.Child("machineType"), pool.MachineType, env.Catalog.MachineTypes))
	}

	switch {
	case pool.Count == nil && pool.Autoscaling == nil:
		errs = append(errs, field.Required(p, "set exactly one of count (a fixed size) or autoscaling (min and max)"))
	case pool.Count != nil && pool.Autoscaling != nil:
		errs = append(errs, field.Forbidden(p.Child("autoscaling"), "set exactly one of count (a fixed size) or autoscaling (min and max)"))
	case pool.Count != nil:
		if *pool.Count < 0 || *pool.Count > MaxPoolSize {
			errs = append(errs, field.Invalid(p.Child("count"), *pool.Count, fmt.Sprintf("must be between 0 and %d", MaxPoolSize)))
		}
	default:
		a := p.Child("autoscaling")
		if pool.Autoscaling.Min < 0 || pool.Autoscaling.Min > MaxPoolSize {
			errs = append(errs, field.Invalid(a.Child("min"), pool.Autoscaling.Min, fmt.Sprintf("must be between 0 and %d", MaxPoolSize)))
		}
		if pool.Autoscaling.Max < 1 || pool.Autoscaling.Max > MaxPoolSize {
			errs = append(errs, field.Invalid(a.Child("max"), pool.Autoscaling.Max, fmt.Sprintf("must be between 1 and %d", MaxPoolSize)))
		}
		if pool.Autoscaling.Min > pool.Autoscaling.Max {
			errs = append(errs, field.Invalid(a.Child("min"), pool.Autoscaling.Min,
				fmt.Sprintf("must not be greater than autoscaling.max (%d)", pool.Autoscaling.Max)))
		}
	}

	zones := p.Child("zones")
	if len(pool.Zones) == 0 {
		errs = append(errs, field.Required(zones, "name the failure zones of the pool; the environment lists none to default to"))
	}
	if len(pool.Zones) > MaxZonesPerPool {
		errs = append(errs, field.TooMany(zones, len(pool.Zones), MaxZonesPerPool))
	}
	if len(pool.Labels) > MaxLabelsPerPool {
		errs = append(errs, field.TooMany(p.Child("labels"), len(pool.Labels), MaxLabelsPerPool))
	}
	if len(pool.Taints) > MaxTaintsPerPool {
		errs = append(errs, field.TooMany(p.Child("taints"), len(pool.Taints), MaxTaintsPerPool))
	}
	seenZone := map[string]bool{}
	for i, z := range pool.Zones {
		if seenZone[z] {
			errs = append(errs, field.Duplicate(zones.Index(i), z))
		}
		seenZone[z] = true
		if len(env.Catalog.Zones) > 0 && !slices.Contains(env.Catalog.Zones, z) && !has.zone(pool.Name, z) {
			errs = append(errs, field.NotSupported(zones.Index(i), z, env.Catalog.Zones))
		}
	}

	// One at a time by key: ValidateLabels reports in map order; messages must be stable.
	for _, k := range slices.Sorted(maps.Keys(pool.Labels)) {
		errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: pool.Labels[k]}, p.Child("labels"))...)
	}
	effects := []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}
	for i, t := range pool.Taints {
		tp := p.Child("taints").Index(i)
		for _, msg := range validation.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(tp.Child("key"), t.Key, msg))
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(tp.Child("value"), t.Value, msg))
		}
		if !slices.Contains(effects, string(t.Effect)) {
			errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect, effects))
		}
	}

	if d := pool.RootDiskGiB; d != nil && (*d < MinRootDiskGiB || *d > MaxRootDiskGiB) {
		errs = append(errs, field.Invalid(p.Child("rootDiskGiB"), *d, fmt.Sprintf("must be between %d and %d", MinRootDiskGiB, MaxRootDiskGiB)))
	}
	errs = append(errs, validateIntOrPercent(p.Child("maxSurge"), pool.MaxSurge)...)
	errs = append(errs, validateIntOrPercent(p.Child("maxUnavailable"), pool.MaxUnavailable)...)
	if isZero(pool.MaxSurge) && isZero(pool.MaxUnavailable) {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), pool.MaxUnavailable.String(),
			"must not be 0 when maxSurge is 0 too, or a rolling update could never make progress"))
	}
	return errs
}

// existing is what a cluster already has, as its status records it.
type existing struct{ status *kaasv1alpha1.ClusterStatus }

func (e existing) minor(v Version) bool {
	if e.status == nil || e.status.Kubernetes == nil {
		return false
	}
	running, err := ParseVersion(e.status.Kubernetes.Version)
	return err == nil && running.SameMinor(v)
}

func (e existing) pool(name string) *kaasv1alpha1.NodePoolStatus {
	if e.status == nil {
		return nil
	}
	for i := range e.status.NodePools {
		if e.status.NodePools[i].Name == name {
			return &e.status.NodePools[i]
		}
	}
	return nil
}

func (e existing) machineType(pool, machineType string) bool {
	p := e.pool(pool)
	return p != nil && p.MachineType == machineType
}

func (e existing) zone(pool, zone string) bool {
	p := e.pool(pool)
	return p != nil && slices.Contains(p.Zones, zone)
}

func validateIntOrPercent(p *field.Path, v *intstr.IntOrString) field.ErrorList {
	if v == nil {
		return nil
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return field.ErrorList{field.Invalid(p, v.IntVal, "must not be negative")}
		}
		return nil
	}
	s := strings.TrimSuffix(v.StrVal, "%")
	n, err := strconv.Atoi(s)
	if s == v.StrVal || err != nil || strings.Trim(s, "0123456789") != "" {
		return field.ErrorList{field.Invalid(p, v.StrVal, "must be a number of nodes or a percentage such as 25%")}
	}
	if n > 100 {
		return field.ErrorList{field.Invalid(p, v.StrVal, "must not be more than 100%")}
	}
	return nil
}

func isZero(v *intstr.IntOrString) bool {
	return v != nil && ((v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && strings.TrimLeft(v.StrVal, "0") == "%"))
}

func validateNetwork(p *field.Path, n *kaasv1alpha1.NetworkSpec) field.ErrorList {
	if n == nil {
		return nil
	}
	var errs field.ErrorList
	type cidr struct {
		name   string
		value  string
		prefix netip.Prefix
	}
	var valid []cidr
	for _, c := range []cidr{{name: "podCIDR", value: n.PodCIDR}, {name: "serviceCIDR", value: n.ServiceCIDR}, {name: "nodeCIDR", value: n.NodeCIDR}} {
		if c.value == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(c.value)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(p.Child(c.name), c.value, "must be a CIDR such as 10.250.0.0/16"))
			continue
		case prefix.Masked() != prefix:
			errs = append(errs, field.Invalid(p.Child(c.name), c.value, fmt.Sprintf("must be a CIDR in canonical form: %s", prefix.Masked())))
			continue
		}
		c.prefix = prefix
		valid = append(valid, c)
	}
	for i := range valid {
		for j := i + 1; j < len(valid); j++ {
			if valid[i].prefix.Overlaps(valid[j].prefix) {
				errs = append(errs, field.Invalid(p.Child(valid[j].name), valid[j].value,
					fmt.Sprintf("must not overlap %s (%s)", p.Child(valid[i].name), valid[i].value)))
			}
		}
	}
	cnis := []string{string(kaasv1alpha1.CNICalico), string(kaasv1alpha1.CNICilium)}
	if n.CNI != "" && !slices.Contains(cnis, string(n.CNI)) {
		errs = append(errs, field.NotSupported(p.Child("cni"), n.CNI, cnis))
	}
	return errs
}

func validateMaintenance(p *field.Path, m *kaasv1alpha1.MaintenanceSpec) field.ErrorList {
	if m == nil || m.Window == nil {
		return nil
	}
	w := p.Child("window")
	begin, errB := ParseWindowTime(m.Window.Begin)
	end, errE := ParseWindowTime(m.Window.End)
	var errs field.ErrorList
	if errB != nil {
		errs = append(errs, field.Invalid(w.Child("begin"), m.Window.Begin, errB.Error()))
	}
	if errE != nil {
		errs = append(errs, field.Invalid(w.Child("end"), m.Window.End, errE.Error()))
	}
	if len(errs) > 0 {
		return errs
	}
	if d := WindowLength(begin, end); d < MinMaintenanceTime || d > MaxMaintenanceTime {
		errs = append(errs, field.Invalid(w, fmt.Sprintf("%s-%s", m.Window.Begin, m.Window.End),
			fmt.Sprintf("the window is %s long; it must last between 30m and 6h", d)))
	}
	return errs
}

// ParseWindowTime parses a window time HHMMSS+ZZZZ as a duration since midnight UTC.
func ParseWindowTime(s string) (time.Duration, error) {
	t, err := time.Parse("150405-0700", s)
	if err != nil {
		return 0, fmt.Errorf("must be a time of day written as HHMMSS+ZZZZ, such as 220000+0000")
	}
	_, offset := t.Zone()
	d := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second
	d -= time.Duration(offset) * time.Second
	return (d + 24*time.Hour) % (24 * time.Hour), nil
}

// WindowLength is the length of a daily window that may pass midnight.
func WindowLength(begin, end time.Duration) time.Duration {
	return (end - begin + 24*time.Hour) % (24 * time.Hour)
}

func validateHibernation(p *field.Path, h *kaasv1alpha1.HibernationSpec) field.ErrorList {
	if h == nil {
		return nil
	}
	var errs field.ErrorList
	for i, s := range h.Schedules {
		sp := p.Child("schedules").Index(i)
		if s.Start == "" && s.End == "" {
			errs = append(errs, field.Required(sp, "a hibernation schedule needs start, end, or both"))
		}
		for _, c := range []struct{ name, value string }{{"start", s.Start}, {"end", s.End}} {
			if c.value == "" {
				continue
			}
			if err := validateCron(c.value); err != nil {
				errs = append(errs, field.Invalid(sp.Child(c.name), c.value, err.Error()))
			}
		}
		if s.Location != "" {
			if _, err := time.LoadLocation(s.Location); err != nil {
				errs = append(errs, field.Invalid(sp.Child("location"), s.Location, "must be an IANA time zone such as Europe/Berlin"))
			}
		}
	}
	return errs
}

// validateCron checks a five-field cron expression as Gardener's hibernation schedules take
// it: numbers, ranges, lists, steps, * and names of months and days.
func validateCron(expr string) error {
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return fmt.Errorf("must be a cron expression with five fields (minute hour day-of-month month day-of-week), such as \"0 20 * * 1-5\"")
	}
	limits := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}
	names := [5]map[string]bool{nil, nil, nil, monthNames, dayNames}
	for i, f := range fields {
		if err := validateCronField(f, limits[i][0], limits[i][1], names[i]); err != nil {
			return fmt.Errorf("field %d (%s) %w", i+1, []string{"minute", "hour", "day-of-month", "month", "day-of-week"}[i], err)
		}
	}
	return nil
}

var (
	monthNames = map[string]bool{"JAN": true, "FEB": true, "MAR": true, "APR": true, "MAY": true, "JUN": true, "JUL": true, "AUG": true, "SEP": true, "OCT": true, "NOV": true, "DEC": true}
	dayNames   = map[string]bool{"SUN": true, "MON": true, "TUE": true, "WED": true, "THU": true, "FRI": true, "SAT": true}
)

func validateCronField(f string, lo, hi int, names map[string]bool) error {
	for _, item := range strings.Split(f, ",") {
		rng, step, hasStep := strings.Cut(item, "/")
		if hasStep {
			var n int
			if _, err := fmt.Sscanf(step, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != step {
				return fmt.Errorf("has an invalid step %q", step)
			}
		}
		if rng == "*" {
			continue
		}
		values := []string{rng}
		if from, to, isRange := strings.Cut(rng, "-"); isRange {
			values = []string{from, to}
		}
		for _, v := range values {
			if names != nil && names[strings.ToUpper(v)] {
				continue
			}
			var n int
			if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != v || n < lo || n > hi {
				return fmt.Errorf("has %q; values must be between %d and %d", v, lo, hi)
			}
		}
	}
	return nil
}

// ValidateUpgrade refuses a version the running cluster cannot move to: a downgrade, or more
// than one minor up. The API server checks the previous spec; what runs can lag behind it.
func ValidateUpgrade(spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus) field.ErrorList {
	if running == nil || running.Version == "" {
		return nil
	}
	have, err := ParseVersion(running.Version)
	if err != nil {
		return nil
	}
	want, err := ParseVersion(spec.Kubernetes.Version)
	if err != nil {
		return nil
	}
	p := field.NewPath("spec", "kubernetes", "version")
	switch {
	case want.Major != have.Major || want.Minor < have.Minor:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	case want.Minor > have.Minor+1:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; upgrade one minor at a time (next: %d.%d), not to %s", running.Version, have.Major, have.Minor+1, spec.Kubernetes.Version))}
	case want.HasPatch() && have.HasPatch() && want.SameMinor(have) && want.Patch < have.Patch:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	}
	return nil
}

// ValidateZonesKept refuses a change of the zones of a pool the status reports: removing a
// zone deletes its nodes, and not every backend adds one in place; a new pool is the way.
func ValidateZonesKept(spec *kaasv1alpha1.ClusterSpec, defaulted *kaasv1alpha1.DefaultedValues, current *kaasv1alpha1.ClusterStatus) field.ErrorList {
	if current == nil {
		return nil
	}
	var errs field.ErrorList
	for i, pool := range spec.NodePools {
		has := existing{current}.pool(pool.Name)
		if has == nil || len(has.Zones) == 0 || SameSet(has.Zones, pool.Zones) {
			continue
		}
		k, ok := keptPool(defaulted, pool.Name)
		errs = append(errs, ZoneChangeRefused(i, pool.Name, has.Zones, pool.Zones, ok && len(k.Zones) > 0))
	}
	return errs
}

// ZoneChangeRefused refuses a change of an existing pool's zones, the same on every backend;
// defaulted says the spec names none, so they came from the environment.
func ZoneChangeRefused(index int, pool string, running, asked []string, defaulted bool) *field.Error {
	msg := fmt.Sprintf("the zones of an existing node pool cannot change (pool %s runs in %s; the spec asks for %s): removing a zone would delete its nodes and adding one cannot be done in place on every backend; add a new pool for other zones and remove this one when it is empty",
		pool, strings.Join(running, ", "), strings.Join(asked, ", "))
	if defaulted {
		msg += fmt.Sprintf("; the spec names no zones, so they came from the environment's data.catalog.zones, which changed: set the pool's zones to %s to keep them", strings.Join(running, ", "))
	}
	return field.Forbidden(field.NewPath("spec", "nodePools").Index(index).Child("zones"), msg)
}

// SameSet says whether a and b hold the same strings, in any order (zones are sets).
func SameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// validateDeletionPolicyAnnotation refuses an unknown value: a guess could delete a cluster
// its owner meant to keep, or the reverse.
func validateDeletionPolicyAnnotation(xr *kaasv1alpha1.XSCSCluster) error {
	v, ok := xr.GetAnnotations()[kaasv1alpha1.AnnotationDeletionPolicy]
	if !ok || slices.Contains(kaasv1alpha1.DeletionPolicies(), kaasv1alpha1.DeletionPolicy(v)) {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonInvalidSpec, "annotation %s: %q is not a deletion policy; allowed: %v",
		kaasv1alpha1.AnnotationDeletionPolicy, v, kaasv1alpha1.DeletionPolicies())
}
