package controlplane

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FluxNamespace is the namespace Flux's controllers run "in" (RUNTIME_NAMESPACE).
const FluxNamespace = "flux-system"

// StartFlux installs Flux's CRDs in the Crossplane cluster and starts its source-controller
// and kustomize-controller (hack/tools/flux) as processes of the control plane, as a
// platform runs them beside Crossplane for the add-ons (docs/addons.md). The
// source-controller serves the artifacts it fetched to the kustomize-controller on a
// loopback port.
//
// make live builds Flux beside the e2e (SCS_KAAS_E2E_BUILD_TOOLS=1), as it does OpenTofu: then
// build.sh returns once that build is done (its lock), however long the test's own deadline.
func (e *Env) StartFlux(ctx context.Context) error {
	variable := "SCS_KAAS_TOOL_FLUX"
	if os.Getenv("SCS_KAAS_E2E_BUILD_TOOLS") == "1" {
		variable = "" // ask build.sh, which waits for the build in progress
	}
	build, cancel := context.WithTimeout(context.WithoutCancel(ctx), 45*time.Minute)
	defer cancel()
	dir, err := toolDir(build, e.opts.RepoRoot, "flux", variable, e.logf)
	if err != nil {
		return err
	}
	c := e.Crossplane
	crds, err := ReadManifests(filepath.Join(dir, "crds", "source"), filepath.Join(dir, "crds", "kustomize"))
	if err != nil {
		return err
	}
	if err := c.ApplyObjects(ctx, crds...); err != nil {
		return fmt.Errorf("Flux's CRDs: %w", err)
	}
	// The controllers map every kind they watch once, when they start.
	if err := e.waitCRDsEstablished(ctx, c, crds); err != nil {
		return fmt.Errorf("Flux's CRDs: %w", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: FluxNamespace}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	storage := filepath.Join(e.RunDir, "flux", "storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		return err
	}
	addr := func(p int) string { return "127.0.0.1:" + strconv.Itoa(p) }
	// No --kubeconfig flag: the controllers read KUBECONFIG.
	env := []string{"KUBECONFIG=" + c.Kubeconfig, "RUNTIME_NAMESPACE=" + FluxNamespace}
	common := func(metrics, health int) []string {
		return []string{"--enable-leader-election=false", "--events-addr=", "--log-level=info",
			"--metrics-addr=" + addr(metrics), "--health-addr=" + addr(health)}
	}
	for _, p := range []struct {
		name   string
		args   []string
		health int
	}{
		{"source-controller", append(common(ports[0], ports[1]), "--storage-path="+storage,
			"--storage-addr="+addr(ports[4]), "--storage-adv-addr="+addr(ports[4])), ports[1]},
		// An add-on waiting on another is looked at again after 5 s instead of Flux's 30 s:
		// the tests wait for dependents, not for a production pace.
		{"kustomize-controller", append(common(ports[2], ports[3]), "--requeue-dependency=5s"), ports[3]},
	} {
		if err := e.StartProcess(ctx, p.name, filepath.Join(dir, p.name), p.args, env, 2*time.Minute,
			HTTPOK(nil, "http://"+addr(p.health)+"/readyz")); err != nil {
			return fmt.Errorf("starting %s: %w", p.name, err)
		}
	}
	return nil
}

// Flux's media types of an artifact of plain manifests, as `flux push artifact` writes them.
const (
	fluxContentMediaType = "application/vnd.cncf.flux.content.v1.tar+gzip"
	fluxConfigMediaType  = "application/vnd.cncf.flux.config.v1+json"
)

// PushManifests pushes the files of dir to repository:tag as the OCI artifact Flux's
// OCIRepository fetches: one layer, a tar.gz of the files, and returns its digest.
func (r *Registry) PushManifests(ctx context.Context, dir, repository, tag string) (string, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.Name(), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return "", err
		}
		if _, err := tw.Write(data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer(buf.Bytes(), fluxContentMediaType))
	if err != nil {
		return "", err
	}
	img = mutate.MediaType(mutate.ConfigMediaType(img, fluxConfigMediaType), types.OCIManifestSchema1)
	ref, err := name.NewTag(r.Address + "/" + repository + ":" + tag)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, r.RemoteOptions(ctx)...); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := img.Digest()
	return d.String(), err
}
