package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func (a *App) newEnvironmentsCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "environments",
		Short: "List the environments the namespace may build clusters in, with their catalogs",
		Long: `List the environments the current namespace may use (spec.environment), with what each
offers: Kubernetes versions, machine types, zones. They come from the EnvironmentConfigs
whose data.access admits the namespace, where you may read EnvironmentConfigs, and else
from what the namespace's SCSClusters report (status.offered); a note on standard error
says what was not readable. Only names and catalogs are shown, never other teams' details.`,
		Example: "  kubectl scs environments -n team1",
		Args:    args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, outputYAML, outputJSON); err != nil {
				return err
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			o, err := collectOffers(cmd.Context(), c, c.Namespace)
			if err != nil {
				return err
			}
			a.printNotes(o.Notes)
			if output != outputTable {
				envs := o.Environments
				if envs == nil {
					envs = []offer{}
				}
				return printValue(a.IO.Out, output, map[string]any{"namespace": o.Namespace, "environments": envs})
			}
			if len(o.Environments) == 0 {
				fmt.Fprintf(a.IO.ErrOut, "No environment found for namespace %s.\n", c.Namespace)
				return nil
			}
			tw := newTable(a.IO.Out, "", "NAME", "DEFAULT", "KUBERNETES", "MACHINE TYPES", "ZONES", "SOURCE")
			for _, e := range o.Environments {
				def := ""
				if e.Default {
					def = "yes"
				}
				machines := strings.Join(e.MachineTypes, ",")
				if machines == "" {
					machines = "any"
				}
				tw.row(e.Name, def, strings.Join(e.KubernetesVersions, ","), machines, strings.Join(e.Zones, ","), e.Source)
			}
			return tw.flush()
		},
	}
	addOutputFlag(cmd, &output, "", outputYAML, outputJSON)
	return cmd
}

// printNotes says on standard error what could not be read.
func (a *App) printNotes(notes []string) {
	for _, n := range notes {
		fmt.Fprintf(a.IO.ErrOut, "Note: %s\n", n)
	}
}
