// Package cli is kubectl-scs: the commands, their flags and their output. Every command
// reads the cluster through Clients, so that tests drive them with fake clients and compare
// whole outputs.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// FieldManager is who kubectl-scs is to the API server's managed fields.
const FieldManager = "kubectl-scs"

// App is what the commands share: where they write, what time it is, and how they reach
// the API server.
type App struct {
	IO genericiooptions.IOStreams
	// Now is the clock of ages and progress lines.
	Now func() time.Time
	// PollInterval is how often wait and delete --wait read the cluster again.
	PollInterval time.Duration
	// Connect makes the clients from the kubeconfig flags (--kubeconfig, --context,
	// -n, ...). Only commands that talk to a cluster call it: render works without one.
	Connect func(*genericclioptions.ConfigFlags) (*Clients, error)
}

// Main runs kubectl-scs with the process's streams and returns its exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := &App{
		IO:           genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Now:          time.Now,
		PollInterval: 2 * time.Second,
	}
	app.Connect = app.connectKubeconfig
	return app.Run(ctx, args)
}

// Run runs one command line and returns the exit code; errors go to ErrOut as kubectl
// prints them ("error: ...").
func (a *App) Run(ctx context.Context, args []string) int {
	cmd := a.NewCommand()
	cmd.SetArgs(args)
	cmd.SetIn(a.IO.In)
	cmd.SetOut(a.IO.Out)
	cmd.SetErr(a.IO.ErrOut)
	err := cmd.ExecuteContext(ctx)
	var differs differsError
	if err != nil && !errors.As(err, &differs) {
		fmt.Fprintf(a.IO.ErrOut, "error: %v\n", err)
	}
	return exitCode(err)
}

// NewCommand is the root command with every subcommand.
func (a *App) NewCommand() *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	root := &cobra.Command{
		Use:   "kubectl-scs",
		Short: "Create, inspect and operate SCS clusters (SCSCluster, kaas.scs.community/v1alpha1)",
		Long: `kubectl-scs works with SCSClusters, the Kubernetes clusters of the SCS cluster API, in
either flavour of the API (claims of XSCSCluster, or Crossplane v2 namespaced SCSClusters).
Run it as "kubectl scs" (a kubectl plugin) or on its own.

Exit codes: 0 ok, 1 error, 2 wrong command line, 3 refused by a rule of the API,
4 not ready (wait timed out, kubeconfig not delivered yet), 5 clusters due (fleet --due);
diff follows kubectl diff (0 no change, 1 changes, 2 error, 3 refused).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Shown in usage and help; completion scripts still use the binary's name.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl scs"},
	}
	flags.AddFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage("%v", err) })
	// Namespace names complete from the cluster, as in kubectl.
	_ = root.RegisterFlagCompletionFunc("namespace", a.completeNamespaces(flags))

	root.AddCommand(
		a.newRenderCommand(flags),
		a.newValidateCommand(flags),
		a.newDiffCommand(flags),
		a.newCreateCommand(flags),
		a.newApplyCommand(flags),
		a.newGetCommand(flags),
		a.newListCommand(flags),
		a.newDescribeCommand(flags),
		a.newWaitCommand(flags),
		a.newKubeconfigCommand(flags),
		a.newUpgradeCommand(flags),
		a.newScaleCommand(flags),
		a.newDeleteCommand(flags),
		a.newEnvironmentsCommand(flags),
		a.newVersionsCommand(flags),
		a.newFleetCommand(flags),
		a.newConformanceCommand(flags),
		a.newImportCommand(flags),
		a.newBackupCommand(flags), a.newRestoreCommand(flags),
	)
	return root
}

// args checks the number of positional arguments, as a usage error.
func args(min, max int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usage("%s takes %s; see %s --help", cmd.CommandPath(), names, cmd.CommandPath())
		}
		return nil
	}
}

// flagSet reports whether a flag was given on the command line.
func flagSet(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
