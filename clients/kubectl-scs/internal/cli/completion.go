package cli

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Shell completion is cobra's: kubectl-scs completion bash|zsh|fish|powershell writes the
// script, and these functions complete names from the cluster the flags point at. A
// completion that cannot reach the cluster completes nothing rather than failing the shell.

// completeClusterNames completes the first argument with the namespace's SCSClusters.
func (a *App) completeClusterNames(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && cmd.Name() != "get" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := a.Connect(flags)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.clusters(c.Namespace).List(cmd.Context(), metav1.ListOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, o := range list.Items {
			if strings.HasPrefix(o.GetName(), prefix) {
				out = append(out, o.GetName())
			}
		}
		sort.Strings(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNamespaces completes -n with the namespaces the user may list.
func (a *App) completeNamespaces(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := a.Connect(flags)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.Dynamic.Resource(namespaceGVR).List(cmd.Context(), metav1.ListOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, o := range list.Items {
			if strings.HasPrefix(o.GetName(), prefix) {
				out = append(out, o.GetName())
			}
		}
		sort.Strings(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFromCluster completes from one SCSCluster, named by the first argument: the
// node pools of scale, the offered versions of upgrade.
func (a *App) completeFromCluster(flags *genericclioptions.ConfigFlags, values func(c *Clients, name string, cmd *cobra.Command) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := a.Connect(flags)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, v := range values(c, args[0], cmd) {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
