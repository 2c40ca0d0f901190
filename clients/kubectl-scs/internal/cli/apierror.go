package cli

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// fromAPI turns the API server's answer to a write into the error kubectl-scs reports:
// a refusal (exit code 3) when a rule of the API said no, the validation of the API's
// schema and CEL rules (Invalid), strict field validation (an unknown field), or an
// admission policy; anything else as it is.
func fromAPI(what string, err error) error {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return err
	}
	msg := status.Status().Message
	switch {
	case apierrors.IsInvalid(err):
		return refused("%s refused by the API server: %s", what, msg)
	case apierrors.IsBadRequest(err) && strings.Contains(msg, "strict decoding error"):
		return refused("%s refused by the API server: %s", what, msg)
	case apierrors.IsForbidden(err) && strings.Contains(msg, "ValidatingAdmissionPolicy"):
		return refused("%s refused by an admission policy: %s", what, policyMessage(msg))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// policyMessage is the policy's own words: what follows "denied request: " in the API
// server's message.
func policyMessage(msg string) string {
	if _, after, ok := strings.Cut(msg, "denied request: "); ok {
		return after
	}
	return msg
}
