package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

type deleteOptions struct {
	wait    bool
	timeout time.Duration
	dryRun  string
}

func (a *App) newDeleteCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &deleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete an SCSCluster, and with it its cluster",
		Long: `Delete an SCSCluster. Unless its deletion policy says Orphan, the backend deletes the
cluster with it. A cluster with deletion protection on (spec.deletionProtection, or purpose
production) is refused by the deletion-protection admission policy; the message says how
to release it (docs/deletion-protection.md). Exits 3 when refused.`,
		Example: `  kubectl scs delete dev
  kubectl scs delete dev --wait --timeout 30m`,
		Args:              args(1, 1, "exactly one NAME"),
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkDryRun(o.dryRun); err != nil {
				return err
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			return a.delete(cmd.Context(), c, args[0], o)
		},
	}
	cmd.Flags().BoolVar(&o.wait, "wait", false, "Wait until the SCSCluster is gone")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 10*time.Minute, "How long --wait waits (exit code 4 after)")
	addDryRunFlag(cmd, &o.dryRun)
	return cmd
}

func (a *App) delete(ctx context.Context, c *Clients, name string, o *deleteOptions) error {
	obj, err := c.getCluster(ctx, c.Namespace, name)
	if err != nil {
		return err
	}
	if o.dryRun != dryRunClient {
		err := c.clusters(c.Namespace).Delete(ctx, name, metav1.DeleteOptions{DryRun: serverDryRun(o.dryRun)})
		switch {
		case apierrors.IsNotFound(err):
			fmt.Fprintf(a.IO.Out, "%s deleted\n", resourceName(name))
			return nil
		case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "ValidatingAdmissionPolicy"):
			return refused("deletion of %s %s/%s refused by the deletion-protection admission policy: %s\n%s",
				kaasv1alpha1.ClaimKind, c.Namespace, name, policyMessage(err.Error()), releaseHint(c.Namespace, name))
		case err != nil:
			return fmt.Errorf("deleting %s %s/%s: %w", kaasv1alpha1.ClaimKind, c.Namespace, name, err)
		}
	}
	what := "deleted"
	if str(obj, "status", "backend", "deletionPolicy") == string(kaasv1alpha1.DeletionOrphan) {
		what = "deleted (its cluster is left running: status.backend.deletionPolicy is Orphan)"
	}
	fmt.Fprintf(a.IO.Out, "%s %s%s\n", resourceName(name), what, dryRunSuffix(o.dryRun))
	if o.wait && o.dryRun == dryRunNone {
		return a.waitDeleted(ctx, c, c.Namespace, name, o.timeout, false)
	}
	return nil
}

// releaseHint says how to release a protected cluster, the two ways
// docs/deletion-protection.md describes.
func releaseHint(namespace, name string) string {
	return fmt.Sprintf(`To delete it with its cluster: set spec.deletionProtection: false in its manifest and apply it
  (or: kubectl -n %[1]s patch scscluster %[2]s --type=merge -p '{"spec":{"deletionProtection":false}}'),
  wait until it is Synced and Rendered again, then delete it.
To let the object go and keep the cluster running: annotate it %[3]s=Orphan
  (kubectl -n %[1]s annotate scscluster %[2]s %[3]s=Orphan), wait until status.backend.deletionPolicy
  says Orphan, then delete it.
See docs/deletion-protection.md.`, namespace, name, kaasv1alpha1.AnnotationDeletionPolicy)
}
