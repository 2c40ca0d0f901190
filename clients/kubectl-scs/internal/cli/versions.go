package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// clusterVersions is where one cluster stands and may go.
type clusterVersions struct {
	Name        string `json:"name"`
	Environment string `json:"environment,omitempty"`
	Spec        string `json:"spec"`
	Runs        string `json:"runs,omitempty"`
	NextMinor   string `json:"nextMinor,omitempty"`
}

func (a *App) newVersionsCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the Kubernetes versions the namespace may use, and where each cluster may go next",
		Long: `List the Kubernetes versions each environment offers the current namespace (as
environments finds them), and for each SCSCluster of the namespace the version it asks for,
the version it runs and the minor it may move to next (status.offered.nextMinor; upgrades
go one minor at a time).`,
		Example: "  kubectl scs versions -n team1",
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
			clusters := []clusterVersions{}
			for _, obj := range o.Clusters {
				clusters = append(clusters, clusterVersions{Name: obj.GetName(),
					Environment: str(obj, "status", "backend", "environment"),
					Spec:        str(obj, "spec", "kubernetes", "version"),
					Runs:        str(obj, "status", "kubernetes", "version"),
					NextMinor:   str(obj, "status", "offered", "nextMinor")})
			}
			if output != outputTable {
				envs := []map[string]any{}
				for _, e := range o.Environments {
					envs = append(envs, map[string]any{"name": e.Name, "kubernetesVersions": e.KubernetesVersions})
				}
				return printValue(a.IO.Out, output, map[string]any{"namespace": o.Namespace, "environments": envs, "clusters": clusters})
			}
			tw := newTable(a.IO.Out, "", "ENVIRONMENT", "KUBERNETES VERSIONS")
			for _, e := range o.Environments {
				tw.row(e.Name, strings.Join(e.KubernetesVersions, ", "))
			}
			if err := tw.flush(); err != nil {
				return err
			}
			if len(clusters) == 0 {
				return nil
			}
			fmt.Fprintln(a.IO.Out)
			tw = newTable(a.IO.Out, "", "CLUSTER", "ENVIRONMENT", "SPEC", "RUNS", "NEXT MINOR")
			for _, cl := range clusters {
				tw.row(cl.Name, cl.Environment, cl.Spec, cl.Runs, cl.NextMinor)
			}
			return tw.flush()
		},
	}
	addOutputFlag(cmd, &output, "", outputYAML, outputJSON)
	return cmd
}
