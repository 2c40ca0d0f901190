package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
)

type importOptions struct {
	files        []string
	environments []string
	environment  string
	name         string
	namespace    string
	output       string
}

func (a *App) newImportCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import -f NATIVE.yaml --environment ENV.yaml --name NAME [-n NAMESPACE] [--in ENVIRONMENT]",
		Short: "Describe a running cluster as the SCSCluster that adopts it, offline",
		Long: `Describe a cluster that runs already (made outside this API, or whose SCSCluster was lost)
as the SCSCluster that adopts it: the reverse of each backend's translation, with the same
model library the composition function runs. -f takes its native objects as they exist:
a Gardener Shoot (and its authentication ConfigMap), a Cluster API Cluster of a cluster
stack, or Magnum's ClusterV1 and NodegroupV1s, as "kubectl get -o yaml" prints them.
--environment takes the EnvironmentConfigs to choose from (files or directories); --in
names the cluster's environment where there are several.

The SCSCluster is printed; applying it adopts the cluster: the function looks for its
native objects before it manages them, reads its settings and defaults back from them, and
changes nothing. Native settings the portable spec cannot express are listed on standard
error; they stay as they are. A cluster this API cannot manage is refused (exit 3) with
the reason.

A native object is adopted only when it carries the cluster's labels
(kaas.scs.community/identity and kaas.scs.community/cluster): whoever may write it hands it
over. The command prints the kubectl label commands that do it, for the objects that do
not carry them yet. One that carries another cluster's identity is refused.`,
		Example: `  kubectl --context garden get shoot prod-eu -n garden-team1 -o yaml > shoot.yaml
  kubectl scs import -f shoot.yaml --environment examples/environments --in gardener-regionone --name shop -n team1 > shop.yaml`,
		Args: args(0, 0, "no arguments; the native objects come with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if flags.Namespace != nil {
				o.namespace = *flags.Namespace
			}
			return a.importCluster(o)
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVarP(&o.files, "filename", "f", nil, "Files or directories of the cluster's native objects, or - for stdin")
	fs.StringSliceVar(&o.environments, "environment", nil, "EnvironmentConfig files or directories (repeatable)")
	fs.StringVar(&o.environment, "in", "", "The cluster's environment, where --environment offers several")
	fs.StringVar(&o.name, "name", "", "The SCSCluster's name")
	addOutputFlag(cmd, &o.output, outputYAML, outputYAML, outputJSON)
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("environment", "yaml", "yml", "json")
	return cmd
}

func (a *App) importCluster(o *importOptions) error {
	switch {
	case len(o.files) == 0:
		return usage("-f is required: the cluster's native objects")
	case len(o.environments) == 0:
		return usage("--environment is required: the EnvironmentConfigs to choose from")
	case o.name == "":
		return usage("--name is required: the SCSCluster's name")
	case o.namespace == "":
		return usage("-n is required: the namespace of the team the cluster is for")
	}
	if err := checkOutput(o.output, outputYAML, outputJSON); err != nil {
		return err
	}
	natives, err := readManifests(a.IO.In, o.files...)
	if err != nil {
		return err
	}
	configs, err := readManifests(a.IO.In, o.environments...)
	if err != nil {
		return err
	}
	// Offered to the team's namespace, as the function chooses: by name or the default.
	env, err := model.SelectEnvironment(o.environment, "", configs, model.Tenant{Namespace: o.namespace})
	if err != nil {
		return refused("refused (%s): %v", model.ReasonOf(err), err)
	}
	registry := all.Registry()
	imported, err := registry.Import(natives, env, model.Identity{Namespace: o.namespace, Name: o.name})
	if err != nil {
		return refused("refused (%s): %v", model.ReasonOf(err), err)
	}
	cluster, err := importedManifest(imported, o.namespace, o.name)
	if err != nil {
		return err
	}
	a.printNotes(importNotes(imported))
	return printObjects(a.IO.Out, o.output, []*unstructured.Unstructured{cluster}, false)
}

// importedManifest is the SCSCluster to apply, in either flavour (their SCSClusters are alike).
func importedManifest(imported *model.ImportedCluster, namespace, name string) (*unstructured.Unstructured, error) {
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&imported.Spec)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kaasv1alpha1.APIVersion, "kind": kaasv1alpha1.ClaimKind, "spec": spec}}
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetAnnotations(imported.Annotations)
	return u, nil
}

// importNotes are what a platform team must know before applying the import.
func importNotes(imported *model.ImportedCluster) []string {
	var notes []string
	for _, u := range imported.Unportable {
		notes = append(notes, fmt.Sprintf("not expressed by the spec, left as it is: %s: %s", u.Field, u.Reason))
	}
	for _, f := range imported.Follows {
		notes = append(notes, fmt.Sprintf("changed when it is managed, as on every cluster of the environment: %s: %s", f.Field, f.Reason))
	}
	notes = append(notes, imported.Differs...)
	for _, h := range imported.Handover {
		keys := make([]string, 0, len(h.Labels))
		for k := range h.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		labels := make([]string, 0, len(keys))
		for _, k := range keys {
			labels = append(labels, k+"="+h.Labels[k])
		}
		ns := ""
		if h.Native.GetNamespace() != "" {
			ns = " -n " + h.Native.GetNamespace()
		}
		notes = append(notes, fmt.Sprintf("hand %s %s over before applying (it is adopted only with the cluster's labels): kubectl label %s %s%s %s",
			h.Native.GetKind(), h.Native.GetName(), strings.ToLower(h.Native.GetKind()), h.Native.GetName(), ns, strings.Join(labels, " ")))
	}
	return notes
}
