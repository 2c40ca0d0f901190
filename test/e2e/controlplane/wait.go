package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var getOpts = metav1.GetOptions{}

// waitFor polls cond until it reports true, ctx ends, timeout passes, or
// failed (typically "the process we wait for has exited") returns an error.
// Every wait in this package goes through here: no bare sleeps, and a
// timeout always says what was awaited and the last error seen.
func waitFor(ctx context.Context, timeout time.Duration, what string, failed func() error, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := 50 * time.Millisecond
	var last error
	for {
		if failed != nil {
			if err := failed(); err != nil {
				return fmt.Errorf("waiting for %s: %w", what, err)
			}
		}
		attempt, cancelAttempt := context.WithTimeout(ctx, 10*time.Second)
		ok, err := cond(attempt)
		cancelAttempt()
		if ok {
			return nil
		}
		if pe := (permanentError{}); errors.As(err, &pe) {
			return fmt.Errorf("%s: %w", what, pe.err)
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("timed out after %s waiting for %s; last error: %w", timeout, what, last)
			}
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		case <-time.After(interval):
		}
		// Back off gently: fast for the quick cases, cheap for slow ones.
		if interval < time.Second {
			interval = interval * 3 / 2
		}
	}
}

// WaitFor is waitFor for tests: poll cond with a deadline, reporting the
// last error on timeout.
func WaitFor(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	return waitFor(ctx, timeout, what, nil, cond)
}

// permanentError stops a wait at once: retrying cannot help.
type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent marks err as final for WaitFor.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// HTTPOK is a wait condition: a GET of url with client (nil: http.DefaultClient) answers
// 200, as health endpoints (/readyz, /healthz, etcd's /health) do once a process is up.
func HTTPOK(client *http.Client, url string) func(context.Context) (bool, error) {
	if client == nil {
		client = http.DefaultClient
	}
	return func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, Permanent(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
}
