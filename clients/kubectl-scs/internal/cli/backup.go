package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// pausedAnnotation is Crossplane's pause annotation: Crossplane does not reconcile an
// object while it says "true".
const pausedAnnotation = "crossplane.io/paused"

// serverSetMetadata are the fields of metadata that the API server and the controllers
// set: an object created from a backup gets its own.
var serverSetMetadata = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "ownerReferences", "finalizers", "selfLink",
}

// whyNotVelero is what backup and restore say of Velero and of clusterctl move.
const whyNotVelero = `Why a command and not Velero: the memory is small and lives in status only. Velero
restores the status of a resource only when it is listed in --status-include-resources,
and does not know the order a cluster needs (the composite before its claim, the status
before Crossplane acts on it); backup and restore know it, and are tested with the rest
of kubectl-scs.

Not in the backup: Cluster API objects in Crossplane's own cluster (a clusterstack
environment whose management cluster is the local one). Moving those is clusterctl
move's job: clusterctl move --to-directory backs them up, --from-directory restores them,
before the SCSClusters, which then find them. clusterctl skips a Cluster whose owner it
does not move: take the composite's owner reference off each Cluster first, with the
composite paused (docs/recovery.md, Local Cluster Stacks).`

type backupOptions struct {
	dir           string
	allNamespaces bool
}

func (a *App) newBackupCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &backupOptions{}
	cmd := &cobra.Command{
		Use:   "backup -o DIR [-n NAMESPACE | -A]",
		Short: "Write the memory of SCSClusters to files, for restore after the control plane is lost",
		Long: `Write each SCSCluster's memory to DIR/<namespace>/<name>.yaml, a YAML stream of the
objects that restore creates: the SCSCluster and, in the legacy flavour, the XSCSCluster
its claim binds (spec.resourceRef). They keep their spec, labels, annotations and status;
what the API server sets (uid, resourceVersion, generation, creationTimestamp,
managedFields, ownerReferences, finalizers) and status.conditions, which Crossplane and
the function write again, are left out. No Secret is written, nor any connection detail:
the backend delivers the kubeconfig again.

A cluster's memory is its composite's status: the backend and environment it was created
in, the settings it keeps (status.backend.pinned), the defaults it took
(status.defaulted), what runs, and the names providers know it by
(status.backend.externalNames, Magnum's UUIDs). Manifests re-applied from Git after the
control plane was lost read most of it back from what runs (observe before managing), but
not Magnum's external names, nor the settings of a cluster whose environment was edited
since it was created: for those, restore puts the backup back.

` + whyNotVelero,
		Example: `  kubectl scs backup -o backup/ -A
  kubectl scs backup -o backup/ -n team1`,
		Args: args(0, 0, "no arguments; the directory comes with -o"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.dir == "" {
				return usage("-o is required: the directory to write the backup to")
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			return a.backup(cmd.Context(), c, o)
		},
	}
	cmd.Flags().StringVarP(&o.dir, "output-dir", "o", "", "Directory to write the backup to, one file a cluster: DIR/<namespace>/<name>.yaml")
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "Back up the SCSClusters of every namespace")
	_ = cmd.MarkFlagDirname("output-dir")
	return cmd
}

// clusterBackup is one cluster's file: its SCSCluster and, in the legacy flavour, the
// XSCSCluster the claim binds.
type clusterBackup struct {
	path      string
	cluster   *unstructured.Unstructured
	composite *unstructured.Unstructured
}

// objects are the backup's objects in the order restore creates them: the composite first,
// so that the claim binds to it instead of Crossplane making a new one without memory.
func (b *clusterBackup) objects() []*unstructured.Unstructured {
	if b.composite != nil {
		return []*unstructured.Unstructured{b.composite, b.cluster}
	}
	return []*unstructured.Unstructured{b.cluster}
}

func (b *clusterBackup) id() string { return b.cluster.GetNamespace() + "/" + b.cluster.GetName() }

// with names the composite that comes with the SCSCluster, for the lines printed.
func (b *clusterBackup) with() string {
	if b.composite == nil {
		return ""
	}
	return " with " + objectName(b.composite)
}

func (a *App) backup(ctx context.Context, c *Clients, o *backupOptions) error {
	ns := c.Namespace
	if o.allNamespaces {
		ns = ""
	}
	list, err := c.clusters(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing SCSClusters: %w", err)
	}
	if len(list.Items) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(a.IO.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(a.IO.ErrOut, "No resources found in %s namespace.\n", c.Namespace)
		}
		return nil
	}
	// Everything is read before anything is written: a backup that misses a composite
	// fails whole rather than leaving a directory that looks complete.
	var backups []*clusterBackup
	for i := range list.Items {
		obj := &list.Items[i]
		b := &clusterBackup{
			path:    filepath.Join(o.dir, obj.GetNamespace(), obj.GetName()+".yaml"),
			cluster: forBackup(obj),
		}
		if xr := str(obj, "spec", "resourceRef", "name"); flavourOf(obj) == flavourLegacy && xr != "" {
			composite, err := c.Dynamic.Resource(compositeGVR).Get(ctx, xr, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("reading %s %s, which %s %s binds: %w (the composite's status is the cluster's memory: a backup without it is none; nothing was written)",
					kaasv1alpha1.CompositeKind, xr, kaasv1alpha1.ClaimKind, b.id(), err)
			}
			b.composite = forBackup(composite)
		}
		backups = append(backups, b)
	}
	sort.Slice(backups, func(i, j int) bool { return backups[i].id() < backups[j].id() })
	for _, b := range backups {
		var buf bytes.Buffer
		if err := printYAMLStream(&buf, b.objects()); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(b.path), 0o750); err != nil {
			return err
		}
		if err := os.WriteFile(b.path, buf.Bytes(), 0o600); err != nil {
			return err
		}
		fmt.Fprintf(a.IO.Out, "%s backed up to %s%s\n", resourceName(b.cluster.GetName()), b.path, b.with())
	}
	return nil
}

// forBackup is obj as restore creates it again: without the metadata the API server sets,
// and without status.conditions, which say what was observed then. Restored, they would
// say Ready before anything is observed again; Crossplane and the function write them anew.
func forBackup(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	if md, ok := out.Object["metadata"].(map[string]any); ok {
		for _, f := range serverSetMetadata {
			delete(md, f)
		}
		// Empty, as removing the pause annotation may leave them: the same backup then
		// comes out of a restored cluster.
		for _, f := range []string{"labels", "annotations"} {
			if m, ok := md[f].(map[string]any); ok && len(m) == 0 {
				delete(md, f)
			}
		}
	}
	if status, ok := out.Object["status"].(map[string]any); ok {
		delete(status, "conditions")
		if len(status) == 0 {
			delete(out.Object, "status")
		}
	}
	return out
}

type restoreOptions struct {
	files []string
}

func (a *App) newRestoreCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &restoreOptions{}
	cmd := &cobra.Command{
		Use:   "restore -f DIR",
		Short: "Create SCSClusters again from what kubectl scs backup wrote, with their memory",
		Long: `Restore the SCSClusters of the files kubectl scs backup wrote (-f: the directory, read
with its subdirectories, or single files), one cluster a file. For each cluster it

  1. creates its objects paused (` + pausedAnnotation + `: "true", Crossplane's pause
     annotation): in the legacy flavour the XSCSCluster first, with its spec.claimRef,
     then the SCSCluster with its spec.resourceRef, so that the claim binds to the
     composite that holds the memory;
  2. writes the backed-up status through the status subresource of each;
  3. removes the annotation (an object that was paused when it was backed up stays paused).

Crossplane acts on a cluster only once its memory is back: unpaused earlier, the function
would see a cluster without memory, and a Magnum cluster whose UUID it does not know would
be created a second time.

A cluster of which an object exists already is refused (exit 3); the others are restored.
Restore never writes over the memory of a live cluster: to restore such a cluster from
its backup, delete it first and keep what runs (annotate it
` + kaasv1alpha1.AnnotationDeletionPolicy + `=Orphan and wait until status.backend.deletionPolicy says
Orphan, docs/deletion-protection.md), or restore without its file. Restore creates no
namespaces: create them first.

` + whyNotVelero,
		Example: `  kubectl scs restore -f backup/
  kubectl scs restore -f backup/team1/dev.yaml`,
		Args: args(0, 0, "no arguments; the backup comes with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(o.files) == 0 {
				return usage("-f is required: the directory kubectl scs backup wrote, or files of it")
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			return a.restore(cmd.Context(), c, o)
		},
	}
	cmd.Flags().StringSliceVarP(&o.files, "filename", "f", nil, "The directory kubectl scs backup wrote (read with its subdirectories), or files of it")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	return cmd
}

func (a *App) restore(ctx context.Context, c *Clients, o *restoreOptions) error {
	paths, err := backupFiles(o.files)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usage("no backup files in %s", strings.Join(o.files, ", "))
	}
	served, _ := servedFlavour(c.Discovery)
	// Every file is read and checked before anything is created.
	backups := make([]*clusterBackup, 0, len(paths))
	for _, p := range paths {
		b, err := readBackup(p)
		if err != nil {
			return err
		}
		if ns := b.cluster.GetNamespace(); c.NamespaceExplicit && ns != c.Namespace {
			return usage("%s is a backup of %s, not of namespace %s as -n says", p, b.id(), c.Namespace)
		}
		if f := backupFlavour(b); served != flavourUnknown && f != flavourUnknown && f != served {
			return fmt.Errorf("%s is a backup of the %s flavour; this control plane serves the %s one: restore it into a control plane of its flavour (docs/migration.md moves clusters between them)", p, f, served)
		}
		backups = append(backups, b)
	}
	var refusals []string
	for _, b := range backups {
		existing, err := existingObjects(ctx, c, b)
		if err != nil {
			return err
		}
		if len(existing) > 0 {
			refusals = append(refusals, fmt.Sprintf("%s (%s exists; %s)", b.id(), strings.Join(existing, " and "), b.path))
			continue
		}
		outcome, err := restoreCluster(ctx, c, b)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.IO.Out, "%s restored from %s%s: %s\n", resourceName(b.cluster.GetName()), b.path, b.with(), outcome)
	}
	if len(refusals) > 0 {
		exist := "exist"
		if len(refusals) == 1 {
			exist = "exists"
		}
		return refused(`restore refused %s that %s already: %s
Restore never writes over the memory of a live cluster. To restore one from its backup, delete it
first and keep what runs: annotate it %s=Orphan, wait until
status.backend.deletionPolicy says Orphan, then delete it (docs/deletion-protection.md); or
restore without its file.`,
			clustersWord(len(refusals)), exist, strings.Join(refusals, "; "), kaasv1alpha1.AnnotationDeletionPolicy)
	}
	return nil
}

// backupFiles are the .yaml, .yml and .json files of the paths, directories read with their
// subdirectories (backup writes one a namespace), in lexical order.
func backupFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				out = append(out, path)
			default:
				if path == p {
					out = append(out, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readBackup reads one cluster's file and checks that it is whole: one SCSCluster, and the
// XSCSCluster it binds if it binds one. A claim restored without its composite would get a
// new one from Crossplane, without the memory.
func readBackup(path string) (*clusterBackup, error) {
	data, err := os.ReadFile(path) //nolint:gosec // G304: the file the user named
	if err != nil {
		return nil, err
	}
	objs, err := decodeManifests(path, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := &clusterBackup{path: path}
	for _, obj := range objs {
		switch {
		case obj.GetAPIVersion() == kaasv1alpha1.APIVersion && obj.GetKind() == kaasv1alpha1.ClaimKind && b.cluster == nil:
			b.cluster = obj
		case obj.GetAPIVersion() == kaasv1alpha1.APIVersion && obj.GetKind() == kaasv1alpha1.CompositeKind && b.composite == nil:
			b.composite = obj
		default:
			return nil, fmt.Errorf("%s: %s %s is not what kubectl scs backup writes: one %s and, in the legacy flavour, the %s it binds",
				path, obj.GetKind(), obj.GetName(), kaasv1alpha1.ClaimKind, kaasv1alpha1.CompositeKind)
		}
	}
	if b.cluster == nil || b.cluster.GetNamespace() == "" {
		return nil, fmt.Errorf("%s holds no %s with a namespace: it is not a file of kubectl scs backup", path, kaasv1alpha1.ClaimKind)
	}
	bound := str(b.cluster, "spec", "resourceRef", "name")
	switch {
	case b.composite == nil && bound != "":
		return nil, fmt.Errorf("%s: %s %s binds %s %s, which the file does not hold: restored alone, it would get a new composite without the cluster's memory",
			path, kaasv1alpha1.ClaimKind, b.id(), kaasv1alpha1.CompositeKind, bound)
	case b.composite != nil && bound != b.composite.GetName():
		return nil, fmt.Errorf("%s: %s %s binds %q, not the %s %s the file holds",
			path, kaasv1alpha1.ClaimKind, b.id(), bound, kaasv1alpha1.CompositeKind, b.composite.GetName())
	}
	return b, nil
}

// backupFlavour is the flavour a backup was taken in.
func backupFlavour(b *clusterBackup) flavour {
	if b.composite != nil {
		return flavourLegacy
	}
	return flavourOf(b.cluster)
}

// resourceFor is where obj, an SCSCluster or a legacy XSCSCluster, is read and written.
func resourceFor(c *Clients, obj *unstructured.Unstructured) dynamic.ResourceInterface {
	if obj.GetKind() == kaasv1alpha1.CompositeKind {
		return c.Dynamic.Resource(compositeGVR)
	}
	return c.clusters(obj.GetNamespace())
}

// kindAndName names an object in messages as its kind and namespace/name.
func kindAndName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return obj.GetKind() + " " + ns + "/" + obj.GetName()
	}
	return obj.GetKind() + " " + obj.GetName()
}

// existingObjects names the objects of a backup that exist already.
func existingObjects(ctx context.Context, c *Clients, b *clusterBackup) ([]string, error) {
	var existing []string
	for _, obj := range b.objects() {
		_, err := resourceFor(c, obj).Get(ctx, obj.GetName(), metav1.GetOptions{})
		switch {
		case err == nil:
			existing = append(existing, kindAndName(obj))
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading %s: %w", kindAndName(obj), err)
		}
	}
	return existing, nil
}

// restoreCluster creates a backup's objects paused, writes their status, then unpauses
// them, and says what it did.
func restoreCluster(ctx context.Context, c *Clients, b *clusterBackup) (string, error) {
	var created []string
	stuck := func(what string, err error) error {
		if len(created) == 0 {
			return fromAPI(what, err)
		}
		return fmt.Errorf("%w\n%s stays paused (%s), so that nothing acts on it without its memory: delete it and restore %s again",
			fromAPI(what, err), strings.Join(created, " and "), pausedAnnotation, b.path)
	}
	statusWritten := false
	for _, obj := range b.objects() {
		res, err := resourceFor(c, obj).Create(ctx, pausedWithoutStatus(obj), metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil {
			return "", stuck("creating "+kindAndName(obj), err)
		}
		created = append(created, kindAndName(obj))
		if status, ok := obj.Object["status"].(map[string]any); ok {
			if err := writeStatus(ctx, c, res, status); err != nil {
				return "", stuck("writing the status of "+kindAndName(obj), err)
			}
			statusWritten = true
		}
	}
	keptPaused := false
	for _, obj := range b.objects() {
		// Back to what the backup says: an object paused on purpose stays paused.
		was, annotated := obj.GetAnnotations()[pausedAnnotation]
		if was == "true" {
			keptPaused = true
			continue
		}
		var value any
		if annotated {
			value = was
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{pausedAnnotation: value}}})
		if err != nil {
			return "", err
		}
		if _, err := resourceFor(c, obj).Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
			return "", stuck("unpausing "+kindAndName(obj), err)
		}
	}
	steps := []string{"created paused"}
	if statusWritten {
		steps = append(steps, "status written")
	} else {
		steps = append(steps, "no status backed up")
	}
	if keptPaused {
		steps = append(steps, "left paused as it was backed up ("+pausedAnnotation+")")
	} else {
		steps = append(steps, "unpaused")
	}
	return strings.Join(steps, ", "), nil
}

// pausedWithoutStatus is obj to create: paused, and without status, which the API server
// drops from a create; it is written through the status subresource.
func pausedWithoutStatus(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	delete(out.Object, "status")
	annotations := out.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[pausedAnnotation] = "true"
	out.SetAnnotations(annotations)
	return out
}

// writeStatus writes status through the status subresource of the object created. Crossplane
// may write a condition to a paused object meanwhile (ReconcilePaused): on a conflict the
// object is read again and the status written over it.
func writeStatus(ctx context.Context, c *Clients, created *unstructured.Unstructured, status map[string]any) error {
	ri := resourceFor(c, created)
	obj := created.DeepCopy()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj.Object["status"] = status
		_, err := ri.UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager})
		if apierrors.IsConflict(err) {
			current, getErr := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
			if getErr != nil {
				return getErr
			}
			obj = current
		}
		return err
	})
}
