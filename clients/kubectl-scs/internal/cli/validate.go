package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

type validateOptions struct {
	files   []string
	schemas []string
	strict  bool
}

func (a *App) newValidateCommand(_ *genericclioptions.ConfigFlags) *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE...",
		Short: "Check manifests offline as the API servers would on create",
		Long: `Check manifests offline, without a cluster, as the API servers that serve them would on
create: SCSClusters against the API's XRD, and the native objects the function renders
(provider-kubernetes Objects and the Shoot or Cluster inside, Cluster API Clusters, the
Cluster Stack operator's kinds, Magnum's ClusterV1 and NodegroupV1, the provider's
AdminKubeconfigs, Secrets) against schemas built into the binary. Custom resources go
through apiextensions-apiserver's code: unknown fields, defaults, the OpenAPI schema, the
CEL rules and the metadata; Shoots through Gardener's own validation. --schemas adds CRDs
and XRDs of further kinds.

It says object by object what was checked against what, and exits 3 when an object is
invalid (or, with --strict, when one has no schema). kubectl scs render --validate checks
what it renders the same way.`,
		Example: `  kubectl scs render -f dev.yaml --environment envs/ > rendered.yaml
  kubectl scs validate -f rendered.yaml --strict`,
		Args: args(0, 0, "no arguments; the manifests come with -f"),
		RunE: func(*cobra.Command, []string) error { return a.validate(o) },
	}
	fs := cmd.Flags()
	fs.StringSliceVarP(&o.files, "filename", "f", nil, "Manifest files or directories, or - for stdin (repeatable)")
	fs.StringSliceVar(&o.schemas, "schemas", nil, "CRD or XRD files or directories of further kinds")
	fs.BoolVar(&o.strict, "strict", false, "Refuse objects of kinds without a schema")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	return cmd
}

func (a *App) validate(o *validateOptions) error {
	if len(o.files) == 0 {
		return usage("-f is required: the manifests to check")
	}
	objs, err := readManifests(a.IO.In, o.files...)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return usage("no objects in %v", o.files)
	}
	v, err := newValidation(a.IO.ErrOut, o.schemas)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		v.check(fmt.Sprintf("%s %s", obj.GetKind(), describeID(obj)), obj)
	}
	return v.result(o.strict)
}
