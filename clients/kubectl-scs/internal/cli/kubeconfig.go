package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// kubeconfigKey is the key of the kubeconfig in the cluster's Secret (docs/kubeconfig.md).
const kubeconfigKey = "kubeconfig"

// oidcKubeconfigKey is the key of the people's kubeconfig, which signs in through the
// cluster's OIDC issuer (docs/access.md).
const oidcKubeconfigKey = model.ConnectionKeyOIDCKubeconfig

type kubeconfigOptions struct {
	oidc        bool
	merge       bool
	file        string
	contextName string
}

func (a *App) newKubeconfigCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &kubeconfigOptions{}
	cmd := &cobra.Command{
		Use:   "kubeconfig NAME [--oidc] [--merge [--kubeconfig-file PATH]]",
		Short: "Print an SCSCluster's kubeconfig, or merge it into a kubeconfig file",
		Long: `Print the kubeconfig of an SCSCluster: the key kubeconfig of the Secret its owner named in
spec.writeConnectionSecretToRef.name, in the cluster's namespace (docs/kubeconfig.md). It
goes to standard output only, never into a log or a message.

With --oidc it is the people's kubeconfig instead, the key oidc-kubeconfig of the same
Secret: it signs in through the cluster's OIDC issuer with kubelogin (kubectl oidc-login)
and holds no secret, so that it can be handed to every member of a team (docs/access.md).
A cluster has one when it names an issuer in spec.access.oidc or its environment gives it
one (defaults.access.oidc); for any other, --oidc fails rather than print the admin
kubeconfig.

With --merge it is added to a kubeconfig file instead, as a context named after the
cluster (--context-name to choose another) with a cluster and a user of the same name;
entries of that name are replaced, everything else is kept, and the current context is
not changed. The file is --kubeconfig-file, else the first file of $KUBECONFIG, else
~/.kube/config. (--kubeconfig is the kubeconfig that reaches the SCSCluster, as in kubectl.)

Exits 4 while the kubeconfig has not been delivered yet.`,
		Example: `  kubectl scs kubeconfig dev > dev.kubeconfig
  kubectl scs kubeconfig dev --merge && kubectl --context dev get nodes
  kubectl scs kubeconfig dev --oidc > dev-people.kubeconfig`,
		Args:              args(1, 1, "exactly one NAME"),
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.merge && (flagSet(cmd.Flags(), "kubeconfig-file") || flagSet(cmd.Flags(), "context-name")) {
				return usage("--kubeconfig-file and --context-name go with --merge")
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			key := kubeconfigKey
			if o.oidc {
				key = oidcKubeconfigKey
			}
			data, err := a.readKubeconfig(cmd.Context(), c, c.Namespace, args[0], key)
			if err != nil {
				return err
			}
			if !o.merge {
				_, err := a.IO.Out.Write(data)
				return err
			}
			name := o.contextName
			if name == "" {
				name = args[0]
			}
			file := o.file
			if file == "" {
				file = defaultKubeconfigFile()
			}
			server, err := mergeKubeconfig(data, file, name)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.IO.Out, "Context %q (%s) merged into %s; use it with: kubectl --context %s ...\n", name, server, file, name)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.oidc, "oidc", false, "The people's kubeconfig, which signs in through the cluster's OIDC issuer, instead of the admin kubeconfig")
	cmd.Flags().BoolVar(&o.merge, "merge", false, "Merge the kubeconfig into a kubeconfig file instead of printing it")
	cmd.Flags().StringVar(&o.file, "kubeconfig-file", "", "The kubeconfig file to merge into (default: first of $KUBECONFIG, else ~/.kube/config)")
	cmd.Flags().StringVar(&o.contextName, "context-name", "", "Name of the merged context, cluster and user (default: the SCSCluster's name)")
	return cmd
}

// readKubeconfig returns the kubeconfig of a cluster under key of its Secret (kubeconfigKey
// or oidcKubeconfigKey), or says why there is none (yet). It never falls back to another
// key: the admin kubeconfig is not the people's.
func (a *App) readKubeconfig(ctx context.Context, c *Clients, namespace, name, key string) ([]byte, error) {
	obj, err := c.getCluster(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	secret := str(obj, "spec", "writeConnectionSecretToRef", "name")
	if secret == "" {
		return nil, fmt.Errorf("%s %s/%s names no Secret for its kubeconfig: set spec.writeConnectionSecretToRef.name and apply it", kaasv1alpha1.ClaimKind, namespace, name)
	}
	// A cluster without an issuer has no people's kubeconfig to wait for; one whose issuer
	// was removed may still hold the last, which signs in nowhere.
	if key == oidcKubeconfigKey && !signsPeopleIn(obj) {
		return nil, fmt.Errorf("%s %s/%s has no OIDC sign-in: name an issuer in spec.access.oidc, or use an environment whose defaults.access.oidc has one",
			kaasv1alpha1.ClaimKind, namespace, name)
	}
	why := fmt.Sprintf("%s is %s", kaasv1alpha1.ConditionKubeconfigReady, model.ConditionOf(obj, kaasv1alpha1.ConditionKubeconfigReady))
	s, err := c.Dynamic.Resource(secretGVR).Namespace(namespace).Get(ctx, secret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, notReady("the kubeconfig of %s %s/%s is not delivered yet: Secret %s does not exist; %s", kaasv1alpha1.ClaimKind, namespace, name, secret, why)
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s/%s: %s", namespace, secret, reasonOf(err))
	}
	encoded, _, _ := unstructured.NestedString(s.Object, "data", key)
	if encoded == "" {
		what := "kubeconfig"
		if key == oidcKubeconfigKey {
			what = "OIDC kubeconfig"
		}
		return nil, notReady("the %s of %s %s/%s is not delivered yet: Secret %s has no key %s; %s", what, kaasv1alpha1.ClaimKind, namespace, name, secret, key, why)
	}
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("Secret %s/%s: key %s is not base64", namespace, secret, key)
	}
	return data, nil
}

// signsPeopleIn says whether the cluster has an OIDC issuer: its own (spec.access.oidc), the
// environment's it took (status.defaulted.access.oidc), or one its backend still carries
// (status.access.oidc).
func signsPeopleIn(obj *unstructured.Unstructured) bool {
	for _, path := range [][]string{{"spec", "access", "oidc"}, {"status", "defaulted", "access", "oidc"}, {"status", "access", "oidc"}} {
		if m, _, _ := unstructured.NestedMap(obj.Object, path...); len(m) > 0 {
			return true
		}
	}
	return false
}

// defaultKubeconfigFile is where kubectl would write: the first file of $KUBECONFIG, else
// ~/.kube/config.
func defaultKubeconfigFile() string {
	if files := filepath.SplitList(os.Getenv(clientcmd.RecommendedConfigPathEnvVar)); len(files) > 0 && files[0] != "" {
		return files[0]
	}
	return clientcmd.RecommendedHomeFile
}

// mergeKubeconfig adds the current context of a kubeconfig to a file, under one name for
// context, cluster and user so that it replaces only what an earlier merge of the same
// cluster wrote. It returns the cluster's server for the message; it never returns or
// prints the credentials.
func mergeKubeconfig(data []byte, file, name string) (string, error) {
	in, err := clientcmd.Load(data)
	if err != nil {
		return "", fmt.Errorf("the cluster's kubeconfig cannot be read: %w", err)
	}
	ctxName := in.CurrentContext
	if ctxName == "" && len(in.Contexts) == 1 {
		for n := range in.Contexts {
			ctxName = n
		}
	}
	kctx := in.Contexts[ctxName]
	if kctx == nil {
		return "", errors.New("the cluster's kubeconfig has no current context")
	}
	cluster, user := in.Clusters[kctx.Cluster], in.AuthInfos[kctx.AuthInfo]
	if cluster == nil || user == nil {
		return "", fmt.Errorf("the cluster's kubeconfig context %q lacks its cluster or user", ctxName)
	}
	out, err := clientcmd.LoadFromFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		out = clientcmdapi.NewConfig()
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	out.Clusters[name] = cluster
	out.AuthInfos[name] = user
	merged := kctx.DeepCopy()
	merged.Cluster, merged.AuthInfo, merged.LocationOfOrigin = name, name, ""
	out.Contexts[name] = merged
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	// WriteToFile writes with mode 0600: the file holds credentials.
	if err := clientcmd.WriteToFile(*out, file); err != nil {
		return "", fmt.Errorf("writing %s: %w", file, err)
	}
	return cluster.Server, nil
}
