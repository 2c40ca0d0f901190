package model

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Reasons say, in one word, why the model layer refused to render. Callers put them in the
// reason of a condition; the error message says the rest.
const (
	ReasonEnvironmentUnavailable  = "EnvironmentUnavailable"
	ReasonInvalidEnvironment      = "InvalidEnvironment"
	ReasonInvalidSpec             = "InvalidSpec"
	ReasonReplacementRefused      = "ReplacementRefused"
	ReasonDeletionRefused         = "DeletionRefused"
	ReasonSecretExposed           = "SecretExposed"
	ReasonObservedStateUnreadable = "ObservedStateUnreadable"
	ReasonRenderFailed            = "RenderFailed"
	ReasonInternalError           = "InternalError"
)

// Error is an error of the model layer with its reason.
type Error struct {
	Reason  string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// InvalidError lists every problem with a cluster's spec or environment, each with its
// field path.
type InvalidError struct {
	// Reason is ReasonInvalidSpec or ReasonInvalidEnvironment.
	Reason string
	// Subject says what was invalid, such as `XSCSCluster "a"`.
	Subject string
	Errs    field.ErrorList
}

func (e *InvalidError) Error() string {
	msgs := make([]string, 0, len(e.Errs))
	for _, err := range e.Errs {
		msgs = append(msgs, err.Error())
	}
	noun := "problem"
	if len(msgs) > 1 {
		noun = "problems"
	}
	return fmt.Sprintf("%s is invalid (%d %s): %s", e.Subject, len(msgs), noun, strings.Join(msgs, "; "))
}

// ReasonOf returns the reason of a model layer error, or ReasonRenderFailed for any other.
func ReasonOf(err error) string {
	var me *Error
	if errors.As(err, &me) {
		return me.Reason
	}
	var ie *InvalidError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return ReasonRenderFailed
}
