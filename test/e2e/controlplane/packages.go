package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Package is a package file of make package and where a mirror serves it: the repository
// under the registry's address that the public name is rewritten to (ReadMirror), at a
// version tag.
type Package struct{ File, Repository, Tag string }

// ProjectPackages are the packages users install, as make package builds them into
// _output/packages: the project's four and provider-kubernetes (deps/), at versions the
// Configurations' dependencies accept.
var ProjectPackages = []Package{
	{"configuration-scs-kaas.xpkg", "sovereigncloudstack/configuration-scs-kaas", "v0.1.0"},
	{"configuration-scs-kaas-claims.xpkg", "sovereigncloudstack/configuration-scs-kaas-claims", "v0.1.0"},
	{"function-scs-kaas.xpkg", "sovereigncloudstack/function-scs-kaas", "v0.1.0"},
	{"provider-gardener-kubeconfig.xpkg", "sovereigncloudstack/provider-gardener-kubeconfig", "v0.1.0"},
	{"deps/provider-kubernetes-v1.3.1.xpkg", "crossplane-contrib/provider-kubernetes", "v1.3.1"},
}

// ReadMirror reads the ImageConfigs of a mirror manifest (examples/install/mirror.yaml)
// and returns, for each public prefix, the repository path it is rewritten to below
// MirrorPlaceholder: ghcr.io/sovereigncloudstack/ -> sovereigncloudstack/.
func ReadMirror(path string) (map[string]string, error) {
	objs, err := ReadManifests(path)
	if err != nil {
		return nil, err
	}
	prefixes := map[string]string{}
	for _, o := range objs {
		if o.GetKind() != "ImageConfig" {
			continue
		}
		rewrite, _, _ := unstructured.NestedString(o.Object, "spec", "rewriteImage", "prefix")
		repository, ok := strings.CutPrefix(rewrite, MirrorPlaceholder+"/")
		if !ok {
			return nil, fmt.Errorf("ImageConfig %s rewrites to %q, not to %s", o.GetName(), rewrite, MirrorPlaceholder)
		}
		matches, _, _ := unstructured.NestedSlice(o.Object, "spec", "matchImages")
		for _, m := range matches {
			if public, _ := m.(map[string]any)["prefix"].(string); public != "" {
				prefixes[public] = repository
			}
		}
	}
	return prefixes, nil
}

// PackageInstall installs the project through Crossplane's package manager from the
// control plane's registry (Options.Packages) instead of applying its XRD, Composition and
// FunctionRevision and provider-kubernetes' CRDs by hand.
type PackageInstall struct {
	// Dir holds the packages of make package (ProjectPackages).
	Dir string
	// CrossplaneCLI is the crossplane-cli that pushes them.
	CrossplaneCLI string
	// Manifests are what docs/install.md has a platform apply for an air-gapped install
	// (examples/install: the ImageConfigs of mirror.yaml and one Configuration), applied as
	// they are but for the registry's address in place of MirrorPlaceholder.
	Manifests []string
}

// MirrorPlaceholder is the registry address examples/install/mirror.yaml names.
const MirrorPlaceholder = "registry.example.internal:5000"

var (
	configurationGVR    = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "configurations"}
	providerRevisionGVR = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "providerrevisions"}
)

// packageRuntimeSecret is the TLS Secret every package revision is given by the runtime
// loop: the function's serving certificate, which also serves for the providers' (unused)
// webhooks.
const packageRuntimeSecret = "package-runtime-tls"

// pushPackages starts the registry and pushes ProjectPackages to it.
func (e *Env) pushPackages(ctx context.Context) error {
	p := e.opts.Packages
	r, err := e.StartRegistry(ctx)
	if err != nil {
		return err
	}
	e.registry = r
	for _, pkg := range ProjectPackages {
		if _, err := r.Push(ctx, p.CrossplaneCLI, filepath.Join(p.Dir, pkg.File), pkg.Repository, pkg.Tag); err != nil {
			return err
		}
	}
	return nil
}

// installConfiguration applies Options.Packages.Manifests (the ImageConfigs pointed at the
// registry, the Configuration by its public name) and waits until the package manager has
// installed the Configuration and its dependencies, provider-kubernetes' CRDs established
// (whether the XRD offers its claim is the caller's to wait for: WaitXRD).
func (e *Env) installConfiguration(ctx context.Context) error {
	c := e.Crossplane
	objs, err := ReadManifests(e.opts.Packages.Manifests...)
	if err != nil {
		return err
	}
	var name string
	for _, o := range objs {
		switch o.GetKind() {
		case "ImageConfig":
			prefix, _, _ := unstructured.NestedString(o.Object, "spec", "rewriteImage", "prefix")
			if !strings.HasPrefix(prefix, MirrorPlaceholder+"/") {
				return fmt.Errorf("ImageConfig %s rewrites to %q, not to %s", o.GetName(), prefix, MirrorPlaceholder)
			}
			if err := unstructured.SetNestedField(o.Object, e.registry.Address+strings.TrimPrefix(prefix, MirrorPlaceholder), "spec", "rewriteImage", "prefix"); err != nil {
				return err
			}
		case "Configuration":
			name = o.GetName()
		}
	}
	if name == "" {
		return errors.New("Options.Packages.Manifests hold no Configuration")
	}
	if err := c.ApplyObjects(ctx, objs...); err != nil {
		return err
	}
	err = waitFor(ctx, 5*time.Minute, "Configuration "+name+" installed and healthy", nil, func(ctx context.Context) (bool, error) {
		cfg, err := c.Dynamic.Resource(configurationGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return conditionTrue(cfg, "Installed") && conditionTrue(cfg, "Healthy"), errors.New(conditionSummary(cfg))
	})
	if err != nil {
		return err
	}
	for _, crd := range []string{"objects.kubernetes.crossplane.io", "objects.kubernetes.m.crossplane.io", "providerconfigs.kubernetes.crossplane.io"} {
		if err := waitFor(ctx, 2*time.Minute, "CRD "+crd+" from provider-kubernetes' package", nil, func(ctx context.Context) (bool, error) {
			o, err := c.Get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", crd)
			if err != nil {
				return false, err
			}
			return conditionTrue(o, "Established"), nil
		}); err != nil {
			return err
		}
	}
	c.Mapper.Reset()
	return nil
}

// runPackageRuntime plays the package runtime Crossplane leaves to an external controller
// (PACKAGE_RUNTIME=External): the processes run here already, and each package revision
// gets the TLS Secret of its server, for a FunctionRevision also the function's endpoint,
// and the condition RuntimeHealthy. Without that a revision stays unhealthy and a provider
// gets no CRDs. It runs until ctx ends, also for the revisions an upgrade creates.
func (e *Env) runPackageRuntime(ctx context.Context) {
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, gvr := range []schema.GroupVersionResource{functionRevisionGVR, providerRevisionGVR} {
			if err := e.packageRuntimeStep(ctx, gvr); err != nil && ctx.Err() == nil {
				e.logf("package runtime: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (e *Env) packageRuntimeStep(ctx context.Context, gvr schema.GroupVersionResource) error {
	ri := e.Crossplane.Dynamic.Resource(gvr)
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: "pkg.crossplane.io/package"})
	if err != nil {
		return err
	}
	for _, rev := range list.Items {
		status := map[string]any{}
		if s, _, _ := unstructured.NestedString(rev.Object, "status", "tlsServerSecretName"); s != packageRuntimeSecret {
			status["tlsServerSecretName"] = packageRuntimeSecret
		}
		endpoint := "dns:///localhost:" + strconv.Itoa(e.fnPort)
		if s, _, _ := unstructured.NestedString(rev.Object, "status", "endpoint"); gvr == functionRevisionGVR && s != endpoint {
			status["endpoint"] = endpoint
		}
		if len(status) > 0 {
			patch, err := (&unstructured.Unstructured{Object: map[string]any{"status": status}}).MarshalJSON()
			if err != nil {
				return err
			}
			if _, err := ri.Patch(ctx, rev.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
				return err
			}
		}
		if conditionTrue(&rev, "RuntimeHealthy") {
			continue
		}
		// Appended: a merge patch would replace the conditions Crossplane keeps.
		cond := fmt.Sprintf(`[{"op":"add","path":"/status/conditions/-","value":{"type":"RuntimeHealthy","status":"True","reason":"HealthyPackageRuntime","lastTransitionTime":%q}}]`,
			time.Now().UTC().Format(time.RFC3339))
		if _, found, _ := unstructured.NestedSlice(rev.Object, "status", "conditions"); !found {
			continue // the next round, once Crossplane has written conditions
		}
		if _, err := ri.Patch(ctx, rev.GetName(), types.JSONPatchType, []byte(cond), metav1.PatchOptions{}, "status"); err != nil {
			return err
		}
	}
	return nil
}

// packageRuntimeTLS stores the function's serving certificate as the Secret the runtime
// loop gives every revision.
func (e *Env) packageRuntimeTLS(ctx context.Context) error {
	data := map[string][]byte{}
	for key, file := range map[string]string{"tls.crt": "tls.crt", "tls.key": "tls.key", "ca.crt": "ca.crt"} {
		b, err := os.ReadFile(filepath.Join(e.FunctionTLSDir(), file))
		if err != nil {
			return err
		}
		data[key] = b
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: packageRuntimeSecret, Namespace: CrossplaneNamespace}, Type: corev1.SecretTypeTLS, Data: data}
	_, err := e.Crossplane.Client.CoreV1().Secrets(CrossplaneNamespace).Create(ctx, secret, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
