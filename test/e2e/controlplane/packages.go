package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// Package is a package file of make package and where a mirror serves it: the repository
// under the registry's address that the public name is rewritten to (ReadMirror), at a
// version tag.
// SBOM is the package's CycloneDX SBOM that make package writes beside it, attested when
// the package is signed (PackageInstall.Verify); empty for a Configuration, which runs no
// code.
type Package struct{ File, Repository, Tag, SBOM string }

// ProjectPackages are the packages users install, as make package builds them into
// _output/packages: the project's four and provider-kubernetes (deps/), at versions the
// Configurations' dependencies accept.
var ProjectPackages = []Package{
	{"configuration-scs-kaas.xpkg", "sovereigncloudstack/configuration-scs-kaas", "v0.1.0", ""},
	{"configuration-scs-kaas-claims.xpkg", "sovereigncloudstack/configuration-scs-kaas-claims", "v0.1.0", ""},
	{"function-scs-kaas.xpkg", "sovereigncloudstack/function-scs-kaas", "v0.1.0", "function-scs-kaas.cdx.json"},
	{"provider-gardener-kubeconfig.xpkg", "sovereigncloudstack/provider-gardener-kubeconfig", "v0.1.0", "provider-gardener-kubeconfig.cdx.json"},
	{"deps/provider-kubernetes-v1.3.1.xpkg", "crossplane-contrib/provider-kubernetes", "v1.3.1", "deps/provider-kubernetes-v1.3.1.cdx.json"},
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
	// Manifests are what docs/install.md has a platform apply for an air-gapped install
	// (examples/install: the ImageConfigs of mirror.yaml and one Configuration), applied as
	// they are but for the registry's address in place of MirrorPlaceholder.
	Manifests []string
	// Verify signs every package pushed to the registry with the control plane's release key
	// (Signing), its SBOM attested, and starts Crossplane with signature verification:
	// VerificationManifests (examples/install/verification.yaml, which requires that key of
	// the project's packages) are applied with the key's Secret before Manifests.
	Verify                bool
	VerificationManifests []string
	// RuntimeCommand runs the package runtime as a process of a detached control plane
	// (Options.Detach): a program and its arguments, to which Start appends
	// --kubeconfig=<Crossplane cluster>, --function=<Function name> and
	// --function-endpoint=<gRPC target>; it must call RunPackageRuntime with them. Without
	// Detach the runtime runs in this process.
	RuntimeCommand []string
}

// ProjectInstall is the air-gapped install of docs/install.md with the packages make
// package built in repoRoot: examples/install/mirror.yaml and the Configuration manifest
// configuration (configuration.yaml for namespaced SCSClusters, configuration-claims.yaml
// for claims). A package that is not built is an error that says to run make package.
func ProjectInstall(repoRoot, configuration string) (*PackageInstall, error) {
	dir := filepath.Join(repoRoot, "_output", "packages")
	built := map[string]time.Time{}
	for _, p := range ProjectPackages {
		fi, err := os.Stat(filepath.Join(dir, p.File))
		if err != nil {
			return nil, fmt.Errorf("the package %s is not built (run make package): %w", p.File, err)
		}
		built[p.File] = fi.ModTime()
	}
	// A Configuration older than its sources would install an API the checkout no longer
	// has, and the tests would pass or fail on it unnoticed.
	for _, src := range []string{"apis/xrd", "compositions", ConfigurationMeta("namespaced"), ConfigurationMeta("legacy")} {
		err := filepath.WalkDir(filepath.Join(repoRoot, src), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			for file, at := range built {
				if strings.HasPrefix(file, "configuration-") && fi.ModTime().After(at) {
					return fmt.Errorf("%s is older than %s (run make package)", file, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	install := filepath.Join(repoRoot, "examples", "install")
	return &PackageInstall{
		Dir:                   dir,
		Manifests:             []string{filepath.Join(install, "mirror.yaml"), filepath.Join(install, configuration)},
		VerificationManifests: []string{filepath.Join(install, "verification.yaml")},
	}, nil
}

// ConfigurationMeta is the package metadata (crossplane.yaml) of a flavour's Configuration,
// relative to the repository root: the primary, namespaced one is package/crossplane.yaml,
// the legacy one beside it package/legacy/crossplane.yaml. Any flavour but legacy is the
// namespaced one.
func ConfigurationMeta(flavour string) string {
	if flavour == "legacy" {
		return filepath.Join("package", "legacy", "crossplane.yaml")
	}
	return filepath.Join("package", "crossplane.yaml")
}

// MirrorPlaceholder is the registry address examples/install/mirror.yaml names.
const MirrorPlaceholder = "registry.example.internal:5000"

var (
	configurationGVR    = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "configurations"}
	functionGVR         = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "functions"}
	providerGVR         = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "providers"}
	providerRevisionGVR = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "providerrevisions"}
)

// packageRuntimeSecret is the TLS Secret every package revision is given by the runtime
// loop: the function's serving certificate, which also serves for the providers' (unused)
// webhooks.
const packageRuntimeSecret = "package-runtime-tls"

// Registry is the control plane's registry (Options.Packages), or nil.
func (e *Env) Registry() *Registry { return e.registry }

// pushPackages starts the registry and pushes ProjectPackages to it.
func (e *Env) pushPackages(ctx context.Context) error {
	p := e.opts.Packages
	r, err := e.StartRegistry(ctx)
	if err != nil {
		return err
	}
	e.registry = r
	for _, pkg := range ProjectPackages {
		sbom := ""
		if pkg.SBOM != "" {
			sbom = filepath.Join(p.Dir, pkg.SBOM)
		}
		if err := e.publish(ctx, filepath.Join(p.Dir, pkg.File), pkg.Repository, pkg.Tag, sbom); err != nil {
			return err
		}
	}
	return nil
}

// publish pushes the package file to repository:tag of the registry and, when the control
// plane verifies packages, signs what it pushed (by digest) with the release key, sbom (if
// any) attested: as a release is published.
func (e *Env) publish(ctx context.Context, file, repository, tag, sbom string) error {
	r := e.registry
	if _, err := r.Push(ctx, e.tools.CrossplaneCLI(), file, repository, tag); err != nil {
		return err
	}
	if !e.opts.Packages.Verify {
		return nil
	}
	digest, err := r.Digest(ctx, repository, tag)
	if err != nil {
		return err
	}
	return e.signing.Sign(ctx, e.opts.RepoRoot, r, e.signing.KeyFile, r.Address+"/"+repository+"@"+digest, sbom)
}

// installConfiguration installs Options.Packages.Manifests (InstallConfiguration), after
// the verification ImageConfigs and the release key's Secret when it verifies.
func (e *Env) installConfiguration(ctx context.Context) error {
	p := e.opts.Packages
	if p.Verify {
		pub, err := os.ReadFile(e.signing.PublicKeyFile)
		if err != nil {
			return err
		}
		key := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ReleaseKeySecret, Namespace: CrossplaneNamespace}, Data: map[string][]byte{"cosign.pub": pub}}
		if _, err := e.Crossplane.Client.CoreV1().Secrets(CrossplaneNamespace).Create(ctx, key, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		objs, err := ReadManifests(p.VerificationManifests...)
		if err != nil {
			return err
		}
		if err := e.Crossplane.ApplyObjects(ctx, e.toRegistry(objs)...); err != nil {
			return err
		}
	}
	return e.InstallConfiguration(ctx, p.Manifests...)
}

// ReleaseKeySecret is the Secret in Crossplane's namespace that holds the public key
// examples/install/verification.yaml verifies the project's packages with (key cosign.pub).
const ReleaseKeySecret = "scs-kaas-release-key"

// toRegistry points ImageConfigs at the control plane's registry: MirrorPlaceholder, in
// the prefixes they rewrite to or match, becomes the registry's address.
func (e *Env) toRegistry(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() != "ImageConfig" {
			continue
		}
		if prefix, found, _ := unstructured.NestedString(o.Object, "spec", "rewriteImage", "prefix"); found {
			_ = unstructured.SetNestedField(o.Object, strings.Replace(prefix, MirrorPlaceholder, e.registry.Address, 1), "spec", "rewriteImage", "prefix")
		}
		matches, _, _ := unstructured.NestedSlice(o.Object, "spec", "matchImages")
		for _, m := range matches {
			if m, ok := m.(map[string]any); ok {
				if prefix, ok := m["prefix"].(string); ok {
					m["prefix"] = strings.Replace(prefix, MirrorPlaceholder, e.registry.Address, 1)
				}
			}
		}
		if matches != nil {
			_ = unstructured.SetNestedSlice(o.Object, matches, "spec", "matchImages")
		}
	}
	return objs
}

// packageCRDs are the CRDs of the installed Providers that the control plane uses:
// provider-kubernetes' Objects and ProviderConfigs, provider-gardener-kubeconfig's
// ProviderConfigs.
var packageCRDs = []string{"objects.kubernetes.crossplane.io", "objects.kubernetes.m.crossplane.io", "providerconfigs.kubernetes.crossplane.io",
	"providerconfigs.gardener.kaas.scs.community"}

// InstallConfiguration applies manifests as docs/install.md has a platform apply them: the
// ImageConfigs of a mirror, pointed at the registry, and a Configuration by its public name.
// It waits until the package manager has installed the Configuration and every package it
// depends on, each Installed and Healthy, and the Providers' CRDs are established (whether
// the XRD offers its claim is the caller's to wait for: WaitXRD). The Configuration is the
// one MovePackages moves from then on.
func (e *Env) InstallConfiguration(ctx context.Context, manifests ...string) error {
	c := e.Crossplane
	objs, err := ReadManifests(manifests...)
	if err != nil {
		return err
	}
	var name, pkg string
	for _, o := range objs {
		switch o.GetKind() {
		case "ImageConfig":
			prefix, found, _ := unstructured.NestedString(o.Object, "spec", "rewriteImage", "prefix")
			if found && !strings.HasPrefix(prefix, MirrorPlaceholder+"/") {
				return fmt.Errorf("ImageConfig %s rewrites to %q, not to %s", o.GetName(), prefix, MirrorPlaceholder)
			}
		case "Configuration":
			name = o.GetName()
			pkg, _, _ = unstructured.NestedString(o.Object, "spec", "package")
		}
	}
	if name == "" {
		return errors.New("the install manifests hold no Configuration")
	}
	if err := c.ApplyObjects(ctx, e.toRegistry(objs)...); err != nil {
		return err
	}
	err = waitFor(ctx, 5*time.Minute, "Configuration "+name+" and its dependencies installed and healthy", nil, func(ctx context.Context) (bool, error) {
		cfg, err := c.Dynamic.Resource(configurationGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !conditionTrue(cfg, "Installed") || !conditionTrue(cfg, "Healthy") {
			return false, fmt.Errorf("Configuration: %s", conditionSummary(cfg))
		}
		for _, gvr := range []schema.GroupVersionResource{functionGVR, providerGVR} {
			list, err := c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			if len(list.Items) == 0 {
				return false, fmt.Errorf("no %s yet", gvr.Resource)
			}
			for _, p := range list.Items {
				if p.GetAnnotations()["crossplane.io/paused"] == "true" {
					continue // registered by hand (StartExtraFunction), never installed
				}
				if !conditionTrue(&p, "Installed") || !conditionTrue(&p, "Healthy") {
					return false, fmt.Errorf("%s %s: %s", gvr.Resource, p.GetName(), conditionSummary(&p))
				}
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, crd := range packageCRDs {
		if err := waitFor(ctx, 2*time.Minute, "CRD "+crd+" from its Provider's package", nil, func(ctx context.Context) (bool, error) {
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
	e.configuration = installedConfiguration{name: name, pkg: pkg}
	return nil
}

// RunPackageRuntime plays the package runtime Crossplane leaves to an external controller
// (PACKAGE_RUNTIME=External) in the Crossplane cluster of kubeconfig: the processes run
// here already, and each revision the package manager made gets the TLS Secret of its
// server and the condition RuntimeHealthy, the revisions of the Function function also its
// endpoint. Without that a revision stays unhealthy and a provider gets no CRDs. It runs
// until ctx ends, also for the revisions an upgrade creates. Revisions registered by hand
// (StartExtraFunction: no owner) are left as they are. Start runs it in its own process, or
// with Detach as the command PackageInstall.RuntimeCommand.
func RunPackageRuntime(ctx context.Context, kubeconfig, function, endpoint string, logf func(format string, args ...any)) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	// The first failure of a streak is logged, and the recovery: an API server that
	// restarts would otherwise fill the log three times a second.
	failing := false
	for {
		var errs []error
		for _, gvr := range []schema.GroupVersionResource{functionRevisionGVR, providerRevisionGVR} {
			fn := ""
			if gvr == functionRevisionGVR {
				fn = function
			}
			if err := packageRuntimeStep(ctx, dyn.Resource(gvr), fn, endpoint); err != nil && ctx.Err() == nil {
				errs = append(errs, err)
			}
		}
		switch {
		case len(errs) > 0 && !failing:
			logf("package runtime: %v (retrying; logged again once it works)", errors.Join(errs...))
			failing = true
		case len(errs) == 0 && failing:
			logf("package runtime: working again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// packageRuntimeStep brings the revisions of ri up to date once; function names the
// Function whose revisions get endpoint.
func packageRuntimeStep(ctx context.Context, ri dynamic.NamespaceableResourceInterface, function, endpoint string) error {
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: "pkg.crossplane.io/package"})
	if err != nil {
		return err
	}
	for _, rev := range list.Items {
		if len(rev.GetOwnerReferences()) == 0 {
			continue // registered by hand, not by the package manager
		}
		status := map[string]any{}
		if s, _, _ := unstructured.NestedString(rev.Object, "status", "tlsServerSecretName"); s != packageRuntimeSecret {
			status["tlsServerSecretName"] = packageRuntimeSecret
		}
		if s, _, _ := unstructured.NestedString(rev.Object, "status", "endpoint"); function != "" && rev.GetLabels()["pkg.crossplane.io/package"] == function && s != endpoint {
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

// startPackageRuntime stores the revisions' TLS Secret and starts RunPackageRuntime: in this
// process, or with Detach as PackageInstall.RuntimeCommand, a process of the control plane.
func (e *Env) startPackageRuntime(ctx context.Context) error {
	if err := e.packageRuntimeTLS(ctx); err != nil {
		return err
	}
	endpoint := "dns:///localhost:" + strconv.Itoa(e.fnPort)
	if e.opts.Detach {
		cmd := e.opts.Packages.RuntimeCommand
		args := append(slices.Clone(cmd[1:]), "--kubeconfig="+e.Crossplane.Kubeconfig, "--function="+e.opts.FunctionName, "--function-endpoint="+endpoint)
		_, err := e.startProcess("package-runtime", cmd[0], args, nil)
		return err
	}
	runtimeCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	e.stopPackageRuntime = func() { cancel(); <-done }
	go func() {
		defer close(done)
		_ = RunPackageRuntime(runtimeCtx, e.Crossplane.Kubeconfig, e.opts.FunctionName, endpoint, e.logf)
	}()
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
