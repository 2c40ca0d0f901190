package clusterstack

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// release is a ClusterStackRelease of the environment's stack.
type release struct {
	Class             string        // the release's name, and its ClusterClass's
	Minor             model.Version // the Kubernetes minor, from the name
	StackVersion      string        // the stack's own version, such as v2
	KubernetesVersion string        // the exact version the class demands, such as v1.34.7
	Ready             bool
}

func (r release) String() string {
	state := "ready"
	if !r.Ready {
		state = "not ready"
	}
	return fmt.Sprintf("%s (%s, %s)", r.Class, r.KubernetesVersion, state)
}

// releases reads the ClusterStackReleases of the environment's stack. known is false while
// a remote management cluster's releases have not been observed yet.
func releases(req *model.Request, mgmt model.Placement) ([]release, bool, error) {
	items, known, err := mgmt.Listed(releaseList(req))
	if err != nil {
		return nil, false, err
	}
	var rels []release
	for _, u := range items {
		if r, ok := parseRelease(req.Environment.ClusterStack, u); ok {
			rels = append(rels, r)
		}
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i].Class < rels[j].Class })
	return rels, known, nil
}

// parseRelease reads a ClusterStackRelease named <provider>-<stack>-<major>-<minor>-<version>.
func parseRelease(cs *envv1alpha1.ClusterStack, u *unstructured.Unstructured) (release, bool) {
	prefix := cs.Provider + "-" + cs.Stack + "-"
	rest, ok := strings.CutPrefix(u.GetName(), prefix)
	if !ok {
		return release{}, false
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) != 3 {
		return release{}, false
	}
	minor, err := model.ParseVersion(parts[0] + "." + parts[1])
	if err != nil {
		return release{}, false
	}
	kv, _, _ := unstructured.NestedString(u.Object, "status", "kubernetesVersion")
	ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready")
	return release{Class: u.GetName(), Minor: minor, StackVersion: parts[2], KubernetesVersion: kv, Ready: ready}, true
}

// chooseRelease picks the release for a Kubernetes version: the one running when it still
// fits and patch updates are off, otherwise the newest ready release of the minor (or the
// one of the pinned patch, or the environment's pinned stack version).
func chooseRelease(cs *envv1alpha1.ClusterStack, rels []release, version string, autoPatch bool, running string) (release, error) {
	want, err := model.ParseVersion(version)
	if err != nil {
		return release{}, err
	}
	var candidates []release
	for _, r := range rels {
		if !r.Ready || !r.Minor.SameMinor(want) || (cs.StackVersion != "" && r.StackVersion != cs.StackVersion) {
			continue
		}
		if want.HasPatch() {
			kv, err := model.ParseVersion(r.KubernetesVersion)
			if err != nil || kv != want {
				continue
			}
		}
		candidates = append(candidates, r)
	}
	if len(candidates) == 0 {
		return release{}, fmt.Errorf("Kubernetes %s is not offered by Cluster Stack %s/%s%s in namespace %s; releases there: %s",
			version, cs.Provider, cs.Stack, pinnedStack(cs), cs.Namespace, describe(rels))
	}
	if !autoPatch {
		for _, r := range candidates {
			if r.Class == running {
				return r, nil
			}
		}
	}
	sort.SliceStable(candidates, func(i, j int) bool { return newerStack(candidates[i].StackVersion, candidates[j].StackVersion) })
	return candidates[0], nil
}

func pinnedStack(cs *envv1alpha1.ClusterStack) string {
	if cs.StackVersion == "" {
		return ""
	}
	return " " + cs.StackVersion
}

func describe(rels []release) string {
	if len(rels) == 0 {
		return "none"
	}
	s := make([]string, len(rels))
	for i, r := range rels {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}

// newerStack orders stack versions: v10 after v9; versions that are not v<number> (such as
// development builds) compare as text and come after numbered ones.
func newerStack(a, b string) bool {
	na, errA := strconv.Atoi(strings.TrimPrefix(a, "v"))
	nb, errB := strconv.Atoi(strings.TrimPrefix(b, "v"))
	switch {
	case errA == nil && errB == nil:
		return na > nb
	case errA == nil:
		return true
	case errB == nil:
		return false
	default:
		return a > b
	}
}
