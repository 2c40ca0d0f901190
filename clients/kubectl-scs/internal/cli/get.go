package cli

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// getOptions are the flags of get and list.
type getOptions struct {
	output        string
	allNamespaces bool
}

func (a *App) newGetCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &getOptions{}
	cmd := &cobra.Command{
		Use:   "get [NAME...]",
		Short: "Show SCSClusters with the columns of kubectl get kaas",
		Long: `Show SCSClusters with the columns kubectl get shows for them: the API's own (environment,
backend, version, phase; with -o wide the API server URL and the cluster's name in the
backend) and Crossplane's (synced, ready, connection secret or composition, age).
Without NAME it lists the namespace's SCSClusters, like list.`,
		Example: `  kubectl scs get
  kubectl scs get dev -o wide
  kubectl scs get -A -o name`,
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.get(cmd.Context(), flags, o, args)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (a *App) newListCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &getOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the SCSClusters of a namespace (or of all, -A)",
		Example: "  kubectl scs list -n team1\n  kubectl scs list -A -o wide",
		Args:    args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.get(cmd.Context(), flags, o, nil)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (o *getOptions) addFlags(cmd *cobra.Command) {
	addOutputFlag(cmd, &o.output, "", outputWide, outputYAML, outputJSON, outputName)
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "List SCSClusters in every namespace")
}

func (a *App) get(ctx context.Context, flags *genericclioptions.ConfigFlags, o *getOptions, names []string) error {
	if err := checkOutput(o.output, outputWide, outputYAML, outputJSON, outputName); err != nil {
		return err
	}
	if o.allNamespaces && len(names) > 0 {
		return usage("a NAME cannot be combined with --all-namespaces: names are per namespace")
	}
	c, err := a.Connect(flags)
	if err != nil {
		return err
	}
	var objs []*unstructured.Unstructured
	if len(names) > 0 {
		for _, n := range names {
			obj, err := c.getCluster(ctx, c.Namespace, n)
			if err != nil {
				return err
			}
			objs = append(objs, obj)
		}
	} else {
		ns := c.Namespace
		if o.allNamespaces {
			ns = ""
		}
		list, err := c.clusters(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing SCSClusters: %w", err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
		sort.Slice(objs, func(i, j int) bool {
			if objs[i].GetNamespace() != objs[j].GetNamespace() {
				return objs[i].GetNamespace() < objs[j].GetNamespace()
			}
			return objs[i].GetName() < objs[j].GetName()
		})
		if len(objs) == 0 && (o.output == outputTable || o.output == outputWide) {
			if o.allNamespaces {
				fmt.Fprintln(a.IO.ErrOut, "No resources found")
			} else {
				fmt.Fprintf(a.IO.ErrOut, "No resources found in %s namespace.\n", c.Namespace)
			}
			return nil
		}
	}
	switch o.output {
	case outputYAML, outputJSON, outputName:
		return printObjects(a.IO.Out, o.output, objs, len(names) == 0)
	}
	t, err := table(objs, columnsFor(c.detectFlavour(objs...)), a.Now())
	if err != nil {
		return err
	}
	return printTable(a.IO.Out, t, o.output == outputWide, o.allNamespaces)
}
