package cli

import (
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/conformance"
)

// connectWorkload reaches a new cluster over its delivered kubeconfig; tests replace it.
var connectWorkload = conformance.ConnectKubeconfig

type conformanceOptions struct {
	environment    string
	minors         []string
	timeout        time.Duration
	cleanupTimeout time.Duration
	report         string
	machineType    string
}

func (a *App) newConformanceCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &conformanceOptions{}
	cmd := &cobra.Command{
		Use:   "conformance --environment NAME [-n NAMESPACE] [--minors 1.33,1.34] [--timeout 30m] [--report FILE]",
		Short: "Check that an environment serves the SCS cluster API as the standard says, with real clusters",
		Long: `Run the conformance kit of the SCS cluster API against an environment, as a team of the
namespace would: learn what the environment offers, create one small cluster per offered
Kubernetes minor (--minors to test fewer), wait until each is Ready, fetch its kubeconfig and
check that the cluster answers with that minor and that its nodes carry zone labels of the
offered zones, scale a pool, upgrade a cluster by one minor, check that a downgrade is
refused naming spec.kubernetes.version, and delete every cluster it created, also after a
failure or an interrupt (Ctrl-C). The clusters are named conformance-<run>-... and labelled
kaas.scs.community/conformance-run=<run>.

The offer comes from the environment's EnvironmentConfig where the user may read it, else
from status.offered of a cluster of the namespace in that environment; a team with neither
gives --minors and --machine-type, and the kit reads the offer from its first cluster.

The summary goes to standard output, progress to standard error; --report writes the report
as YAML in the shape of the SCS compliance check's reports. Kubeconfigs are never printed.

Exits 0 when every check passed (skipped ones do not fail a run) and every cluster is gone,
1 when a check failed or a cluster is left, 2 for a wrong command line. docs/conformance.md
describes each check.`,
		Example: `  kubectl scs conformance --environment gardener-regionone -n team1 --report report.yaml
  kubectl scs conformance --environment clusterstack-regionone --minors 1.34 --timeout 45m`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.environment == "" {
				return usage("--environment is required: the environment to check (kubectl scs environments lists them)")
			}
			for _, m := range o.minors {
				if !versionPattern.MatchString(m) || strings.Count(m, ".") != 1 {
					return usage("--minors takes Kubernetes minors such as 1.34, not %q", m)
				}
			}
			if o.timeout <= 0 {
				return usage("--timeout must be positive")
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			kit := &conformance.Kit{Dynamic: c.Dynamic, Connect: connectWorkload, Options: conformance.Options{
				Environment:    o.environment,
				Namespace:      c.Namespace,
				Minors:         o.minors,
				Timeout:        o.timeout,
				CleanupTimeout: o.cleanupTimeout,
				PollInterval:   a.PollInterval,
				MachineType:    o.machineType,
				Log:            a.IO.ErrOut,
				Now:            a.Now,
			}}
			out, err := kit.Run(cmd.Context())
			if err != nil {
				return err
			}
			if o.report != "" {
				report := conformance.ReportOf(out, o.argv(c.Namespace), newUUID(), newUUID())
				data, err := report.YAML()
				if err != nil {
					return err
				}
				if err := os.WriteFile(o.report, data, 0o644); err != nil {
					return fmt.Errorf("writing the report: %w", err)
				}
			}
			if err := conformance.WriteSummary(a.IO.Out, out); err != nil {
				return err
			}
			if !out.Passed() {
				_, failed, _ := out.Counts()
				return fmt.Errorf("environment %s does not conform: %d checks failed, %d clusters left", o.environment, failed, len(out.Leftovers))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.environment, "environment", "", "The environment to check (spec.environment)")
	cmd.Flags().StringSliceVar(&o.minors, "minors", nil, "Test only these offered Kubernetes minors (default: every offered minor)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Minute, "How long each wait may take: a cluster Ready, scaled, upgraded")
	cmd.Flags().DurationVar(&o.cleanupTimeout, "cleanup-timeout", 0, "How long the deletion of the created clusters may take (default: --timeout)")
	cmd.Flags().StringVar(&o.report, "report", "", "Write the report as YAML (the SCS compliance check's shape) to this file")
	cmd.Flags().StringVar(&o.machineType, "machine-type", "", "Machine type of the clusters' pool (default: the first the environment offers)")
	_ = cmd.MarkFlagFilename("report", "yaml")
	return cmd
}

// argv is the command line as the report records it: the kit's own flags and the
// namespace, never a credential of the kubeconfig flags.
func (o *conformanceOptions) argv(namespace string) []string {
	out := []string{"kubectl", "scs", "conformance", "--environment", o.environment, "-n", namespace}
	if len(o.minors) > 0 {
		out = append(out, "--minors", strings.Join(o.minors, ","))
	}
	out = append(out, "--timeout", o.timeout.String())
	if o.machineType != "" {
		out = append(out, "--machine-type", o.machineType)
	}
	if o.report != "" {
		out = append(out, "--report", o.report)
	}
	return out
}

// newUUID is a random (version 4) UUID, as the compliance check names its runs.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
