package magnum

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// forceNew lists the fields of a managed resource Magnum cannot change in place, with what
// sets each of them: a field of the environment ("data. ...") or a portable field, where
// "%s" stands for the pool's path (spec.nodePools[i]).
type forceNew struct {
	fields map[string]string
	// labels maps Magnum label keys; "*" covers every other label.
	labels map[string]string
}

var clusterForceNew = forceNew{
	fields: map[string]string{
		"flavor":            "%s.machineType",
		"dockerVolumeSize":  "%s.rootDiskGiB",
		"masterCount":       "spec.controlPlane.highAvailability",
		"masterLbEnabled":   "spec.controlPlane.highAvailability",
		"region":            "data.region",
		"keypair":           "data.magnum.keypair",
		"masterFlavor":      "data.magnum.masterFlavor",
		"fixedNetwork":      "data.magnum.fixedNetwork",
		"fixedSubnet":       "data.magnum.fixedSubnet",
		"floatingIpEnabled": "data.magnum.floatingIPEnabled",
	},
	labels: map[string]string{
		labelAvailabilityZone:   "%s.zones",
		labelMinNodes:           "%s.autoscaling",
		labelMaxNodes:           "%s.autoscaling",
		labelAutoscaling:        "%s.autoscaling",
		labelCalicoPool:         "spec.network.podCIDR",
		labelServiceClusterIPs:  "spec.network.serviceCIDR",
		labelOIDCIssuerURL:      "spec.access.oidc",
		labelOIDCClientID:       "spec.access.oidc",
		labelOIDCUsernameClaim:  "spec.access.oidc",
		labelOIDCUsernamePrefix: "spec.access.oidc",
		labelOIDCGroupsClaim:    "spec.access.oidc",
		labelOIDCGroupsPrefix:   "spec.access.oidc",
		labelAllowedCIDRs:       "spec.access.allowedSourceRanges",
		"*":                     "data.magnum.labels",
	},
}

var nodegroupForceNew = forceNew{
	fields: map[string]string{
		"flavorId":         "%s.machineType",
		"dockerVolumeSize": "%s.rootDiskGiB",
		"region":           "data.region",
	},
	labels: map[string]string{"*": "%s.zones"},
}

// validateTemplate checks that the environment has a template for the version, and that a
// pinned patch is the template's.
func validateTemplate(req *model.Request) (envv1alpha1.MagnumTemplate, field.ErrorList) {
	spec := &req.Cluster.Spec
	vp := field.NewPath("spec", "kubernetes", "version")
	tpl, ok := template(req.Environment, spec.Kubernetes.Version)
	if !ok {
		return tpl, field.ErrorList{field.Invalid(vp, spec.Kubernetes.Version, "the environment has no Magnum cluster template for this minor")}
	}
	if want, err := model.ParseVersion(spec.Kubernetes.Version); err == nil && want.HasPatch() {
		if have, err := model.ParseVersion(tpl.KubeTag); err != nil || have != want {
			return tpl, field.ErrorList{field.Invalid(vp, spec.Kubernetes.Version, fmt.Sprintf(
				"Magnum's cluster template for %s runs %q; pin that patch or name the minor only", tpl.KubernetesVersion, tpl.KubeTag))}
		}
	}
	return tpl, nil
}

// validateUpdate refuses every change of the rendering that Magnum would need a new cluster
// or node group for, compared with what the managed resources say was applied.
func validateUpdate(req *model.Request, s *state, rendered *model.Rendering) field.ErrorList {
	if !s.cluster.exists() {
		return nil
	}
	var errs field.ErrorList
	spec := &req.Cluster.Spec
	if pool := s.cluster.obj.GetAnnotations()[AnnotationDefaultPool]; pool != "" && pool != spec.NodePools[0].Name {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "nodePools").Index(0).Child("name"), fmt.Sprintf(
			"the first node pool is the Magnum cluster's default node group, which is pool %q; it cannot be renamed, removed or moved without a new cluster: keep %q first",
			pool, pool)))
	}
	for _, r := range rendered.Resources {
		o, ok := req.Observed[r.Name]
		if !ok || o.Object == nil {
			continue
		}
		if r.Name == ResourceCluster {
			errs = append(errs, forceNewChanges(r.Object, o.Object, clusterForceNew, "spec.nodePools[0]", "the Magnum cluster")...)
			continue
		}
		g := groupFor(req, r.Name)
		if g == nil {
			continue
		}
		errs = append(errs, forceNewChanges(r.Object, o.Object, nodegroupForceNew, fmt.Sprintf("spec.nodePools[%d]", g.poolIndex), "node group "+g.magnumName())...)
	}
	return errs
}

func groupFor(req *model.Request, resourceName string) *nodeGroup {
	for _, g := range nodeGroups(req.Cluster.Spec.NodePools) {
		if g.resourceName() == resourceName {
			return &g
		}
	}
	return nil
}

// forceNewChanges compares the fields desired sets with what the managed resource says was
// applied, and refuses each ForceNew field that would change.
func forceNewChanges(desired, applied *unstructured.Unstructured, fn forceNew, pool, what string) field.ErrorList {
	want, _, _ := unstructured.NestedMap(desired.Object, "spec", "forProvider")
	have, _, _ := unstructured.NestedMap(applied.Object, "spec", "forProvider")
	var errs field.ErrorList
	refused := map[string]bool{}
	refuse := func(source, nativeField string, was, now any) {
		p := source
		if strings.Contains(p, "%s") {
			p = fmt.Sprintf(p, pool)
		}
		if refused[p+"/"+nativeField] {
			return
		}
		refused[p+"/"+nativeField] = true
		errs = append(errs, field.Forbidden(parsePath(p), fmt.Sprintf(
			"Magnum cannot change %s of %s in place (%s, now %s): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster",
			nativeField, what, display(was), display(now))))
	}
	for _, f := range slices.Sorted(maps.Keys(fn.fields)) {
		w, wok := want[f]
		h, hok := have[f]
		if wok && hok && !sameValue(w, h) {
			refuse(fn.fields[f], f, h, w)
		}
	}
	if w, ok := want["labels"]; ok {
		if h, ok := have["labels"]; ok {
			for _, k := range changedLabels(w, h) {
				src, ok := fn.labels[k]
				if !ok {
					src = fn.labels["*"]
				}
				refuse(src, "label "+k, labelValue(h, k), labelValue(w, k))
			}
			// The access labels are this project's own (no template sets them): one applied
			// and no longer desired is access removed, which Magnum cannot do in place either.
			for _, k := range removedAccessLabels(w, h) {
				refuse(fn.labels[k], "label "+k, labelValue(h, k), labelValue(w, k))
			}
		}
	}
	return errs
}

// changedLabels are the desired labels whose value differs from, or is missing in, what
// was applied. Labels applied but no longer desired cannot be told apart from the
// template's (upjet initialises them from Magnum), so only desired labels count.
func changedLabels(want, have any) []string {
	w, _ := want.(map[string]any)
	h, _ := have.(map[string]any)
	var out []string
	for k, v := range w {
		if hv, ok := h[k]; !ok || !sameValue(v, hv) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func labelValue(labels any, k string) any {
	m, _ := labels.(map[string]any)
	if v, ok := m[k]; ok {
		return v
	}
	return "unset"
}

// sameValue compares JSON values; numbers compare by value whatever their Go type.
func sameValue(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n)
	}
	return 0, false
}

func display(v any) string {
	if f, ok := number(v); ok {
		return fmt.Sprint(f)
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// parsePath turns "spec.nodePools[0].zones" into a field path.
func parsePath(s string) *field.Path {
	var p *field.Path
	for _, part := range strings.Split(s, ".") {
		name, index, hasIndex := strings.Cut(part, "[")
		if p == nil {
			p = field.NewPath(name)
		} else {
			p = p.Child(name)
		}
		if hasIndex {
			// Indexes here are written by this package; an unreadable one is index 0.
			i, _ := strconv.Atoi(strings.TrimSuffix(index, "]"))
			p = p.Index(i)
		}
	}
	return p
}
