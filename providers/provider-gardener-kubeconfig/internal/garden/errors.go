package garden

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Cause names why a kubeconfig could not be issued. It leads every error message, so that a
// condition or event says the cause in its first word, and it decides nothing else: every
// failure is retried with backoff, because even a missing Shoot or a missing permission can be
// fixed in the garden without touching the managed resource.
type Cause string

// The causes, from the garden's answer.
const (
	// CauseShootNotFound: the garden has no such Shoot (404 for the Shoot itself).
	CauseShootNotFound Cause = "ShootNotFound"
	// CausePermissionDenied: the credentials may not create shoots/adminkubeconfig (403).
	CausePermissionDenied Cause = "PermissionDenied"
	// CauseUnauthorized: the garden rejected the credentials themselves (401).
	CauseUnauthorized Cause = "Unauthorized"
	// CauseNotServed: the garden serves no adminkubeconfig subresource (404 for the path), for
	// example a plain kube-apiserver or a garden without gardener-apiserver.
	CauseNotServed Cause = "SubresourceNotServed"
	// CauseRejected: the garden refused the request as invalid (400, 422), for example a Shoot
	// without an advertised API server address yet.
	CauseRejected Cause = "RequestRejected"
	// CauseUnavailable: the garden answered with a server error or throttling (429, 5xx).
	CauseUnavailable Cause = "GardenUnavailable"
	// CauseUnreachable: no answer at all (connection refused, DNS, TLS, timeout).
	CauseUnreachable Cause = "GardenUnreachable"
	// CauseBadResponse: a success status with a body that carries no usable kubeconfig.
	CauseBadResponse Cause = "UnexpectedResponse"
)

// Error is a failure to issue an admin kubeconfig. Its message names the cause and the Shoot
// and quotes only the garden's Status message or the transport error, never a request or
// response body.
type Error struct {
	Cause Cause
	// Shoot is namespace/name.
	Shoot string
	// Detail says what happened, in words safe for conditions, events and logs.
	Detail string
	// Err is the underlying error, for errors.Is/As.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: cannot issue an admin kubeconfig for Shoot %s: %s", e.Cause, e.Shoot, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// CauseOf returns the cause of an error from Issue, or "" for other errors.
func CauseOf(err error) Cause {
	var e *Error
	if errors.As(err, &e) {
		return e.Cause
	}
	return ""
}

// classify turns what the REST client returned into an Error.
func classify(err error, shoot, shootName string) *Error {
	e := &Error{Shoot: shoot, Err: err}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		e.Cause, e.Detail = CauseUnreachable, err.Error()
		return e
	}
	s := status.Status()
	e.Detail = s.Message
	switch {
	case s.Code == http.StatusNotFound && s.Details != nil && s.Details.Kind == "shoots" && s.Details.Name == shootName:
		e.Cause = CauseShootNotFound
	case s.Code == http.StatusNotFound:
		e.Cause = CauseNotServed
		e.Detail = "the garden does not serve shoots/adminkubeconfig (is it a Gardener garden cluster with gardener-apiserver?): " + s.Message
	case s.Code == http.StatusForbidden:
		e.Cause = CausePermissionDenied
		e.Detail = "the ProviderConfig's credentials may not create shoots/adminkubeconfig: " + s.Message
	case s.Code == http.StatusUnauthorized:
		e.Cause = CauseUnauthorized
		e.Detail = "the garden rejected the ProviderConfig's credentials: " + s.Message
	case s.Code == http.StatusBadRequest || s.Code == http.StatusUnprocessableEntity:
		e.Cause = CauseRejected
	case s.Code == http.StatusTooManyRequests || s.Code >= 500:
		e.Cause = CauseUnavailable
	default:
		e.Cause = CauseBadResponse
		e.Detail = fmt.Sprintf("unexpected HTTP status %d: %s", s.Code, s.Message)
	}
	return e
}
