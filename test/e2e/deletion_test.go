package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

const confirmDeletion = "confirmation.gardener.cloud/deletion"

// TestDeleteUnprotectedClaimRemovesShoot: deleting a claim without deletion protection
// deletes the composite resource, the Object and, through provider-kubernetes, the Shoot.
func TestDeleteUnprotectedClaimRemovesShoot(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "delfree"

	apply(ctx, t, newClaim(name, smallSpec("1.34", 1, 3)))
	xr, native, shoot := waitShoot(ctx, t, name)
	rendered(ctx, t, name)
	// Everything a deletion needs is in place before it starts: functions do not run on
	// deletion.
	if got := shoot.GetAnnotations()[confirmDeletion]; got != "true" {
		t.Errorf("Shoot annotation %s = %q, want true", confirmDeletion, got)
	}

	start := time.Now()
	if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting an unprotected claim: %v", err)
	}
	waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
	measure(t, "claim delete -> Shoot gone", start)
	waitFor(ctx, t, deadline, "Object "+native+"-shoot deleted", gone(objects(), native+"-shoot"))
	waitFor(ctx, t, deadline, "AdminKubeconfig "+native+"-kubeconfig deleted", gone(adminKubeconfigs(), native+"-kubeconfig"))
	waitFor(ctx, t, deadline, "composite "+xr+" deleted", gone(xrs(), xr))
	waitFor(ctx, t, deadline, "claim "+name+" deleted", gone(claims(), name))
	measure(t, "claim delete -> claim, composite and Object gone", start)
}

// TestDeleteProtectedClaimRefused: with deletion protection on, explicitly or by purpose
// production, the ValidatingAdmissionPolicy refuses to delete the claim and its composite
// resource, gardener-apiserver refuses to delete the Shoot (no deletion confirmation), and
// deleting the Object leaves the Shoot, which the recomposed Object takes back. Following docs/deletion-protection.md (turn protection
// off, wait for Synced, delete) then deletes it.
func TestDeleteProtectedClaimRefused(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name, claim string
		spec        func(protect bool) map[string]any
		want        string // in the refusal message
	}{
		{
			name:  "deletionProtection true",
			claim: "protect",
			spec: func(protect bool) map[string]any {
				s := smallSpec("1.34", 1, 3)
				s["deletionProtection"] = protect
				return s
			},
			want: "has deletion protection on (spec.deletionProtection)",
		},
		{
			name:  "purpose production",
			claim: "prod",
			spec: func(protect bool) map[string]any {
				s := smallSpec("1.34", 1, 3)
				s["purpose"] = "production"
				if !protect {
					s["deletionProtection"] = false
				}
				return s
			},
			want: "defaulted by purpose production",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			apply(ctx, t, newClaim(tc.claim, tc.spec(true)))
			xr, native, shoot := waitShoot(ctx, t, tc.claim)
			rendered(ctx, t, tc.claim)
			if _, ok := shoot.GetAnnotations()[confirmDeletion]; ok {
				t.Errorf("protected Shoot carries %s", confirmDeletion)
			}
			obj, err := objects().Get(ctx, native+"-shoot", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := str(obj, "spec", "deletionPolicy"); got != "Orphan" {
				t.Errorf("protected Object deletionPolicy = %q, want Orphan", got)
			}

			// The API server loads admission policies asynchronously; the control plane
			// applied this one minutes ago, a dry run proves it is in force before a real
			// delete is attempted.
			dryRun := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
			waitFor(ctx, t, deadline, "deletion-protection policy in force", func(ctx context.Context) (bool, error) {
				err := claims().Delete(ctx, tc.claim, dryRun)
				return apierrors.IsForbidden(err), fmt.Errorf("dry-run delete: %v", err)
			})

			for _, del := range []struct {
				what string
				do   func() error
			}{
				{"claim " + tc.claim, func() error { return claims().Delete(ctx, tc.claim, metav1.DeleteOptions{}) }},
				{"composite " + xr, func() error { return xrs().Delete(ctx, xr, metav1.DeleteOptions{}) }},
			} {
				err := del.do()
				if !apierrors.IsForbidden(err) {
					t.Fatalf("deleting protected %s: want Forbidden, got %v", del.what, err)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("refusal for %s does not say %q: %v", del.what, tc.want, err)
				}
			}
			claim, err := getClaim(ctx, tc.claim)
			if err != nil {
				t.Fatalf("protected claim: %v", err)
			}
			if claim.GetDeletionTimestamp() != nil {
				t.Errorf("protected claim is being deleted")
			}
			assertShootUntouched(ctx, t, native, shoot)

			// Behind our policy, Gardener's own: a protected Shoot lacks the deletion
			// confirmation, so gardener-apiserver refuses to delete it, whoever asks.
			err = shoots().Delete(ctx, native, metav1.DeleteOptions{})
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), confirmDeletion) {
				t.Fatalf("deleting the protected Shoot in the garden: %v, want Gardener's refusal naming %s", err, confirmDeletion)
			}
			// An admin deleting the Object (which the policy does not cover) leaves the
			// Shoot (deletionPolicy Orphan); Crossplane composes the Object again and it
			// takes the same Shoot back.
			oldObject := obj.GetUID()
			if err := objects().Delete(ctx, native+"-shoot", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("deleting the protected Object: %v", err)
			}
			waitFor(ctx, t, deadline, "Object "+native+"-shoot composed again and synced", func(ctx context.Context) (bool, error) {
				o, err := objects().Get(ctx, native+"-shoot", metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return o.GetUID() != oldObject && model.ConditionOf(o, "Synced").Status == "True", fmt.Errorf("Object %s Synced %v", o.GetUID(), model.ConditionOf(o, "Synced"))
			})
			assertShootUntouched(ctx, t, native, shoot)

			// Release it as docs/deletion-protection.md says: protection off, wait until
			// the function has armed the deletion, delete.
			apply(ctx, t, newClaim(tc.claim, tc.spec(false)))
			waitFor(ctx, t, deadline, "Object deletionPolicy Delete and Shoot confirmed for deletion", func(ctx context.Context) (bool, error) {
				obj, err := objects().Get(ctx, native+"-shoot", metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				s, err := shoots().Get(ctx, native, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return str(obj, "spec", "deletionPolicy") == "Delete" && s.GetAnnotations()[confirmDeletion] == "true", nil
			})
			rendered(ctx, t, tc.claim)
			if err := claims().Delete(ctx, tc.claim, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("deleting the released claim: %v", err)
			}
			waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
		})
	}
}
