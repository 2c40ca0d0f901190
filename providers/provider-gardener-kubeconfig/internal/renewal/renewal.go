// Package renewal decides when an admin kubeconfig is renewed and when the controller looks
// at it again. It is pure arithmetic on times, so that tests need no clock at all.
package renewal

import "time"

// DefaultFraction of the granted lifetime is left when the provider renews, unless the
// managed resource sets renewBefore: a 24-hour kubeconfig is renewed after 16 hours. A third
// leaves room for hours of garden outage (retried with backoff) before consumers hold an
// expired credential, while keeping the number of issued credentials low.
const DefaultFraction = 3

// MaxFraction caps an explicit renewBefore at half the granted lifetime. Without the cap, a
// renewBefore larger than what the garden grants (it caps lifetimes, 24 hours by default,
// less on some gardens) would make every kubeconfig due at once: a renewal on every reconcile.
const MaxFraction = 2

// MinRequeue is the shortest wait the controller asks for, so that a renewal time that has
// just passed never turns into a tight loop.
const MinRequeue = time.Second

// Time returns when a kubeconfig issued at issuedAt and expiring at expiresAt is renewed.
// renewBefore is the managed resource's spec.forProvider.renewBefore (nil: unset).
func Time(issuedAt, expiresAt time.Time, renewBefore *time.Duration) time.Time {
	lifetime := expiresAt.Sub(issuedAt)
	if lifetime <= 0 {
		// Expired on arrival (a garden clock far ahead of ours): renew at once.
		return issuedAt
	}
	margin := lifetime / DefaultFraction
	if renewBefore != nil && *renewBefore > 0 {
		margin = min(*renewBefore, lifetime/MaxFraction)
	}
	return expiresAt.Add(-margin)
}

// Due says whether a kubeconfig with this renewal time must be renewed now.
func Due(now, renewAt time.Time) bool {
	return !now.Before(renewAt)
}

// RequeueAfter returns how long the controller waits before it looks at an up-to-date
// kubeconfig again: the poll interval, or less when the renewal comes sooner. This is what
// makes renewal independent of --poll: a 1-hour poll interval still renews a 1-hour
// kubeconfig at 40 minutes.
func RequeueAfter(now, renewAt time.Time, poll time.Duration) time.Duration {
	until := renewAt.Sub(now)
	switch {
	case until < MinRequeue:
		return MinRequeue
	case until < poll:
		return until
	default:
		return poll
	}
}
