package model

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
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

// Unreadable marks an error as observed state that cannot be read.
func Unreadable(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Reason: kaasv1alpha1.ReasonObservedStateUnreadable, Message: err.Error()}
}

// InvalidError lists every problem with a cluster's spec or environment.
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
	return kaasv1alpha1.ReasonRenderFailed
}
