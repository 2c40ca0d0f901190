package cli

import (
	"errors"
	"fmt"
)

// Exit codes. Scripts tell "the API said no" and "not there yet" apart from a broken
// connection or a typo, so that a pipeline can retry the one and stop on the others.
const (
	// ExitOK: the command did what was asked.
	ExitOK = 0
	// ExitError: anything else went wrong: the API server could not be reached, an object
	// does not exist, a permission is missing, a file cannot be read.
	ExitError = 1
	// ExitUsage: the command line is wrong (unknown flag, missing argument).
	ExitUsage = 2
	// ExitRefused: the request was understood and refused by a rule of the API: the model
	// library refused to render (render), the API server's validation or an admission
	// policy refused it (create, apply, scale, upgrade, delete), the version rules refused
	// an upgrade before it was sent, or the function refuses to render the cluster and it
	// will not progress until its spec changes (wait).
	ExitRefused = 3
	// ExitNotReady: the cluster did not become ready in time (wait --timeout), or its
	// kubeconfig has not been delivered yet (kubeconfig).
	ExitNotReady = 4
	// ExitDue: fleet --due found clusters that need an upgrade or a new kubeconfig.
	ExitDue = 5
)

// dueError says that fleet --due found clusters with something due.
type dueError struct{ n int }

func (e *dueError) Error() string {
	if e.n == 1 {
		return "1 cluster is due"
	}
	return fmt.Sprintf("%d clusters are due", e.n)
}

// refusedError is a refusal by a rule of the API; the message says which rule and how to go on.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

func refused(format string, args ...any) error {
	return &refusedError{msg: fmt.Sprintf(format, args...)}
}

// notReadyError says that what was asked for is not there yet.
type notReadyError struct{ msg string }

func (e *notReadyError) Error() string { return e.msg }

func notReady(format string, args ...any) error {
	return &notReadyError{msg: fmt.Sprintf(format, args...)}
}

// usageError is a wrong command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usage(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// differsError says that kubectl scs diff found changes: exit 1, as kubectl diff, with
// nothing to print.
type differsError struct{}

func (differsError) Error() string { return "the edit changes the cluster" }

// diffFailedError is a failure of kubectl scs diff: exit 2, since 1 says "changes" there.
type diffFailedError struct{ error }

func (e diffFailedError) Unwrap() error { return e.error }

// exitCode maps an error to the process's exit code.
func exitCode(err error) int {
	var r *refusedError
	var n *notReadyError
	var u *usageError
	var due *dueError
	var d differsError
	var f diffFailedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &due):
		return ExitDue
	case errors.As(err, &d):
		return ExitError
	case errors.As(err, &f):
		return ExitUsage
	case errors.As(err, &r):
		return ExitRefused
	case errors.As(err, &n):
		return ExitNotReady
	case errors.As(err, &u):
		return ExitUsage
	}
	return ExitError
}
