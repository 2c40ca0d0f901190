package adminkubeconfig

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// AnnotationIssuance carries the record of a kubeconfig issued by Create.
//
// Why an annotation as well as status.atProvider: the managed reconciler persists only
// annotations from Create (it writes the object to record external-create-succeeded, and
// that write replaces the in-memory status with the stored one), while from Update it
// persists only status. A record kept in status alone would be lost after the first
// issuance, and the next Observe would find a kubeconfig without knowing when it expires.
// Observe uses whichever record is newer, so the annotation matters only until the first
// renewal. AdminKubeconfigs of both groups use this one key.
const AnnotationIssuance = v1alpha1.Group + "/issuance"

// issuance is what the provider remembers about the kubeconfig it issued last. It holds no
// secret.
type issuance struct {
	// Shoot is namespace/name.
	Shoot     string    `json:"shoot"`
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expirationTimestamp"`
}

// lastIssuance returns the newest record in status and annotation, if any.
func lastIssuance(cr *adminKubeconfig) (issuance, bool) {
	var best issuance
	found := false
	at := cr.at
	if at.IssuedAt != nil && at.ExpirationTimestamp != nil && at.Shoot != "" {
		best, found = issuance{Shoot: at.Shoot, IssuedAt: at.IssuedAt.Time, ExpiresAt: at.ExpirationTimestamp.Time}, true
	}
	if raw, ok := cr.GetAnnotations()[AnnotationIssuance]; ok {
		var a issuance
		// A record that does not parse is ignored: at worst the kubeconfig is issued again.
		if err := json.Unmarshal([]byte(raw), &a); err == nil && a.Shoot != "" && !a.IssuedAt.IsZero() && !a.ExpiresAt.IsZero() {
			if !found || a.IssuedAt.After(best.IssuedAt) {
				best, found = a, true
			}
		}
	}
	return best, found
}

// annotate writes an issuance into the annotation, for Create (see AnnotationIssuance).
func annotate(cr *adminKubeconfig, rec issuance) {
	raw, _ := json.Marshal(rec) // a struct of strings and times always marshals
	annotations := cr.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AnnotationIssuance] = string(raw)
	cr.SetAnnotations(annotations)
}

// observe writes an issuance, the server and the renewal time into status.atProvider.
func observe(cr *adminKubeconfig, rec issuance, server string, renewAt time.Time) {
	cr.at.Shoot = rec.Shoot
	cr.at.Server = server
	cr.at.RenewalTime = &metav1.Time{Time: renewAt}
	cr.at.IssuedAt = &metav1.Time{Time: rec.IssuedAt}
	cr.at.ExpirationTimestamp = &metav1.Time{Time: rec.ExpiresAt}
}
