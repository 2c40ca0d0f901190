package clusterstack

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestNewerReleaseWaitsForTheWindow: a newer ready release of the minor the Cluster runs is
// the cluster's own update; it starts inside the cluster's maintenance window only, and
// once the Cluster runs it, it is never taken back when the window ends. What the team asks
// for (another minor) applies at once.
func TestNewerReleaseWaitsForTheWindow(t *testing.T) {
	saturday := func(hhmm string) time.Time {
		ts, _ := time.Parse("2006-01-02 15:04", "2026-12-05 "+hhmm)
		return ts
	}
	onRelease := func(class, version string) *clusterv1.Cluster {
		c := existingCluster()
		c.Spec.Topology.ClassRef.Name, c.Spec.Topology.Version = class, version
		return c
	}
	cases := map[string]struct {
		now       time.Time
		version   string
		observed  *clusterv1.Cluster
		wantClass string
		wantAsked []model.Decision
	}{
		"OutsideTheWindowTheRunningReleaseStays": {now: saturday("14:00"), version: "1.34", observed: onRelease("openstack-scs2-1-34-v3", "v1.34.7"),
			wantClass: "openstack-scs2-1-34-v3",
			wantAsked: []model.Decision{{Reason: kaasv1alpha1.ReasonOutsideWindow, Update: planned("v1.34.7", "v1.34.8", saturday("14:00"), saturday("02:00").Add(24*time.Hour))}}},
		"InsideTheWindowTheNewestReleaseStarts": {now: saturday("02:10"), version: "1.34", observed: onRelease("openstack-scs2-1-34-v3", "v1.34.7"),
			wantClass: "openstack-scs2-1-34-v10",
			wantAsked: []model.Decision{{Start: true, Update: planned("v1.34.7", "v1.34.8", saturday("02:10"), time.Time{})}}},
		"StartedItIsNotCutOffWhenTheWindowEnds": {now: saturday("03:30"), version: "1.34", observed: onRelease("openstack-scs2-1-34-v10", "v1.34.8"),
			wantClass: "openstack-scs2-1-34-v10"},
		"TheTeamsMinorUpgradeAppliesAtOnce": {now: saturday("14:00"), version: "1.34", observed: onRelease("openstack-scs2-1-33-v4", "v1.33.9"),
			wantClass: "openstack-scs2-1-34-v10"},
		"ANewClusterTakesTheNewest": {now: saturday("14:00"), version: "1.34",
			wantClass: "openstack-scs2-1-34-v10"},
		"AWithdrawnReleaseIsKeptNotGoneBackFrom": {now: saturday("02:10"), version: "1.34", observed: onRelease("openstack-scs2-1-34-v11", "v1.34.9"),
			wantClass: "openstack-scs2-1-34-v11"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := spec()
			s.Kubernetes.Version = tc.version
			s.Maintenance = &kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "020000+0000", End: "030000+0000"}}
			env := environment("local")
			req := request(s, env, standardReleases(), tc.observed)
			req.Maintenance = model.NewMaintenance(tc.now, &req.Cluster.Spec, env, model.Identity{Name: "shop"}, nil)
			c, _ := renderedCluster(t, req)
			if got := c.Spec.Topology.ClassRef.Name; got != tc.wantClass {
				t.Errorf("classRef = %s, want %s", got, tc.wantClass)
			}
			if diff := cmp.Diff(tc.wantAsked, req.Maintenance.Decided()); diff != "" {
				t.Errorf("asked (-want, +got):\n%s", diff)
			}
		})
	}
}

func planned(from, to string, since, notBefore time.Time) kaasv1alpha1.PlannedUpdate {
	u := kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: from, To: to, Since: mtime(since),
		Message: from + " -> " + to + " in the window 02:00-03:00 UTC"}
	if !notBefore.IsZero() {
		u.NotBefore = mtime(notBefore)
		u.Message += ", from " + notBefore.Format(time.RFC1123)
	}
	return u
}

func mtime(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
