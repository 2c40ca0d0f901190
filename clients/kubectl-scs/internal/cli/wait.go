package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// What wait can wait for.
const (
	forReady  = "ready"
	forDelete = "delete"
)

type waitOptions struct {
	until   string
	timeout time.Duration
}

func (a *App) newWaitCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &waitOptions{}
	cmd := &cobra.Command{
		Use:   "wait NAME --for=ready|delete [--timeout=10m]",
		Short: "Wait until an SCSCluster is ready (or gone), printing its progress",
		Long: `Wait until an SCSCluster is Ready (its cluster healthy and its kubeconfig delivered), or
with --for=delete until it is gone. A line is printed whenever the phase or the BackendReady
condition (the backend's own reason and words) changes.

Exits 0 when it is there, 4 when the timeout passes first, and 3 at once when the function
refuses to render the cluster's current spec (Stalled): it will not progress until the spec
or the environment changes.`,
		Example: `  kubectl scs wait dev --for=ready --timeout=30m
  kubectl scs wait dev --for=delete`,
		Args:              args(1, 1, "exactly one NAME"),
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.until != forReady && o.until != forDelete {
				return usage("--for must be %s or %s, not %q", forReady, forDelete, o.until)
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			if o.until == forDelete {
				return a.waitDeleted(cmd.Context(), c, c.Namespace, args[0], o.timeout, true)
			}
			return a.waitReady(cmd.Context(), c, c.Namespace, args[0], o.timeout)
		},
	}
	cmd.Flags().StringVar(&o.until, "for", forReady, "What to wait for: ready or delete")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 10*time.Minute, "How long to wait before giving up (exit code 4)")
	_ = cmd.RegisterFlagCompletionFunc("for", cobra.FixedCompletions([]string{forReady, forDelete}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// progress is what a progress line says; a new line is printed when it changes.
type progress struct {
	phase        string
	backendReady model.ObservedCondition
}

func progressOf(obj *unstructured.Unstructured) progress {
	return progress{phase: str(obj, "status", "phase"), backendReady: model.ConditionOf(obj, kaasv1alpha1.ConditionBackendReady)}
}

func (p progress) String() string {
	return fmt.Sprintf("phase %s, %s %s", orDefault(p.phase, "not reported yet"), kaasv1alpha1.ConditionBackendReady, p.backendReady)
}

// waitReady polls the SCSCluster until Ready is True. Polling rather than a watch: one
// GET every few seconds is nothing for the API server, and it survives proxies and
// restarts that end watches.
func (a *App) waitReady(ctx context.Context, c *Clients, namespace, name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := a.Now()
	var last *progress
	for {
		obj, err := c.clusters(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("%s %s/%s not found", kaasv1alpha1.ClaimKind, namespace, name)
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("reading %s %s/%s: %w", kaasv1alpha1.ClaimKind, namespace, name, err)
		case err == nil:
			p := progressOf(obj)
			if last == nil || *last != p {
				fmt.Fprintf(a.IO.ErrOut, "[%s] %s: %s\n", a.Now().Sub(start).Round(time.Second), name, p)
				last = &p
			}
			if model.ConditionOf(obj, model.ManagedConditionReady).Status == "True" {
				fmt.Fprintf(a.IO.Out, "%s condition met\n", resourceName(name))
				return nil
			}
			if s := stalled(obj); s != "" {
				return refused("%s %s/%s will not become ready: %s", kaasv1alpha1.ClaimKind, namespace, name, s)
			}
		}
		if err := a.sleep(ctx); errors.Is(err, context.DeadlineExceeded) {
			ready := "not reported"
			if last != nil {
				ready = last.String()
			}
			return notReady("%s %s/%s is not ready after %s: %s", kaasv1alpha1.ClaimKind, namespace, name, timeout, ready)
		} else if err != nil {
			return err
		}
	}
}

// stalled says why a cluster will not progress, when the function refuses its current
// spec: Stalled True about the current generation. A Stalled condition from before the
// last change of the spec (a lower observedGeneration) is stale: the fix may be on its way.
func stalled(obj *unstructured.Unstructured) string {
	s, ok := fields.Stalled(obj)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %s", kaasv1alpha1.ConditionStalled, s)
}

// waitDeleted polls until the SCSCluster is gone; announce says so on stdout, for wait
// (delete --wait has said "deleted" already).
func (a *App) waitDeleted(ctx context.Context, c *Clients, namespace, name string, timeout time.Duration, announce bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := a.Now()
	var last *progress
	for {
		obj, err := c.clusters(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if announce {
				fmt.Fprintf(a.IO.Out, "%s deleted\n", resourceName(name))
			}
			return nil
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("reading %s %s/%s: %w", kaasv1alpha1.ClaimKind, namespace, name, err)
		case err == nil:
			p := progressOf(obj)
			if last == nil || *last != p {
				fmt.Fprintf(a.IO.ErrOut, "[%s] %s: %s\n", a.Now().Sub(start).Round(time.Second), name, p)
				last = &p
			}
		}
		if err := a.sleep(ctx); errors.Is(err, context.DeadlineExceeded) {
			return notReady("%s %s/%s still exists after %s", kaasv1alpha1.ClaimKind, namespace, name, timeout)
		} else if err != nil {
			return err
		}
	}
}

// sleep waits one poll interval; an error when the context ends first.
func (a *App) sleep(ctx context.Context) error {
	t := time.NewTimer(a.PollInterval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
