package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// delete-cleanup: every cluster the run created, and any other cluster labelled with the
// run, is deleted and gone within the cleanup timeout. It runs in Run's deferred path, after
// the table however it ended, with a context of its own; a cluster that is still there
// fails the run and is named in Outcome.Leftovers.
const (
	deleteCleanupID          = "delete-cleanup"
	deleteCleanupDescription = "every cluster the run created is deleted and gone"
)

// deleteCleanupInput is what delete-cleanup needs.
type deleteCleanupInput struct {
	// Created are the clusters the run created (create-ready, upgrade-minor); Selector
	// finds the others labelled with the run.
	Created  []string
	Selector string
}

// deleteCleanup is delete-cleanup.
func (r *run) deleteCleanup(ctx context.Context) {
	r.cleanup(ctx, deleteCleanupInput{Created: slices.Clone(r.kit.created), Selector: LabelRun + "=" + r.kit.Options.RunID})
}

// cleanup deletes the clusters and waits until they are gone.
func (r *run) cleanup(ctx context.Context, in deleteCleanupInput) {
	o := &r.kit.Options
	names := in.Created
	if list, err := r.clusters().List(ctx, metav1.ListOptions{LabelSelector: in.Selector}); err == nil {
		for _, c := range list.Items {
			if !slices.Contains(names, c.GetName()) {
				names = append(names, c.GetName())
			}
		}
	}
	start := o.Now()
	res := Result{ID: deleteCleanupID, Description: deleteCleanupDescription}
	if len(names) == 0 {
		res.Verdict, res.Message = Skipped, "the run created no cluster"
		r.out.Results = append(r.out.Results, res)
		return
	}
	r.logf("%s: deleting %s", deleteCleanupID, strings.Join(names, ", "))
	var problems []string
	for _, n := range names {
		err := r.clusters().Delete(ctx, n, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("deleting %s: %s", n, reasonOf(err)))
		}
	}
	var left []string
	err := r.poll(ctx, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, n := range names {
			_, err := r.clusters().Get(ctx, n, metav1.GetOptions{})
			if err == nil || !apierrors.IsNotFound(err) {
				left = append(left, n)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		for _, n := range left {
			r.out.Leftovers = append(r.out.Leftovers, "SCSCluster "+o.Namespace+"/"+n)
		}
		problems = append(problems, fmt.Sprintf("still there after %s: %s", o.Now().Sub(start).Round(time.Second), strings.Join(left, ", ")))
	}
	res.Duration = o.Now().Sub(start)
	if len(problems) > 0 {
		res.Verdict, res.Message = Failed, strings.Join(problems, "; ")
	} else {
		res.Verdict, res.Message = Passed, fmt.Sprintf("deleted and gone after %s: %s", res.Duration.Round(time.Second), strings.Join(names, ", "))
	}
	r.logf("%s: %s: %s", deleteCleanupID, strings.ToUpper(string(res.Verdict)), res.Message)
	r.out.Results = append(r.out.Results, res)
}
