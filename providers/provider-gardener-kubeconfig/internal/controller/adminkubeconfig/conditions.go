package adminkubeconfig

import (
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReasonExpired says the kubeconfig in the connection secret has expired: renewing failed
// for longer than the renewal margin (the Synced condition says why).
const ReasonExpired xpv2.ConditionReason = "Expired"

func expired(at time.Time) xpv2.Condition {
	return xpv2.Condition{
		Type:               xpv2.TypeReady,
		Status:             corev1.ConditionFalse,
		LastTransitionTime: metav1.Now(),
		Reason:             ReasonExpired,
		Message:            "the admin kubeconfig in the connection secret expired at " + at.UTC().Format(time.RFC3339) + "; renewing it fails, see the Synced condition",
	}
}
