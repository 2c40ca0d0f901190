package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Tools are the programs and schemas render needs; make render builds them.
type Tools struct {
	// CLI is the crossplane CLI (github.com/crossplane/cli/v2).
	CLI string
	// Core is the Crossplane core binary; the CLI hands rendering to it.
	Core string
	// Function is the function-scs-kaas binary.
	Function string
	// Schemas are CRD and XRD files or directories the output is validated against.
	Schemas []string
	// Unvalidated are API groups whose schemas are not at hand; their objects are left
	// out of validation, and the output says so.
	Unvalidated []string
}

// Paths of the repository inputs, relative to the repository root.
const (
	compositionFile = "compositions/legacy/xscscluster.yaml"
	functionsFile   = "examples/functions.yaml"
	environmentsDir = "examples/environments"
	scenariosDir    = "examples/render"
	xrdFile         = "apis/xrd/legacy/xscsclusters.kaas.scs.community.yaml"
	devTargetAnno   = "render.crossplane.io/runtime-development-target"
)

// Scenario is one render: an XR, the environments, and observed composed resources.
type Scenario struct {
	Name     string
	XR       string
	Observed string // empty: nothing exists yet
	// Environments is a file or directory of EnvironmentConfigs; empty: none at all.
	Environments string
	// Required are further files or directories of required resources (the backend's own
	// requirements, such as ClusterStackReleases).
	Required []string
}

// Scenarios lists examples/render/<backend>/xr.yaml, once without observed resources and
// once with each observed-<name>.yaml next to it. The directory required/ holds required
// resources for every scenario of the backend, required-<name>/ those of one scenario.
func Scenarios(root string) ([]Scenario, error) {
	dirs, err := filepath.Glob(filepath.Join(root, scenariosDir, "*", "xr.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var out []Scenario
	for _, xr := range dirs {
		dir := filepath.Dir(xr)
		base := filepath.Base(dir)
		envs := filepath.Join(root, environmentsDir)
		var common []string
		if _, err := os.Stat(filepath.Join(dir, "required")); err == nil {
			common = append(common, filepath.Join(dir, "required"))
		}
		out = append(out, Scenario{Name: base, XR: xr, Environments: envs, Required: common})
		observed, err := filepath.Glob(filepath.Join(dir, "observed-*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(observed)
		for _, o := range observed {
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(o), "observed-"), ".yaml")
			required := append([]string(nil), common...)
			if _, err := os.Stat(filepath.Join(dir, "required-"+name)); err == nil {
				required = append(required, filepath.Join(dir, "required-"+name))
			}
			out = append(out, Scenario{Name: base + "/" + name, XR: xr, Observed: o, Environments: envs, Required: required})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenarios under %s", filepath.Join(root, scenariosDir))
	}
	return out, nil
}

// Renderer runs the function as a local process and renders through the crossplane CLI.
type Renderer struct {
	tools     Tools
	root      string
	work      string
	functions string
	fn        *exec.Cmd
	fnLog     *bytes.Buffer
}

// Start starts the function on a free loopback port, without TLS, as the CLI's
// Development runtime expects.
func Start(ctx context.Context, root, work string, tools Tools) (*Renderer, error) {
	addr, err := freeAddress()
	if err != nil {
		return nil, err
	}
	r := &Renderer{tools: tools, root: root, work: work, fnLog: &bytes.Buffer{}}
	r.fn = exec.CommandContext(ctx, tools.Function, "--insecure", "--address="+addr, "--metrics-address=")
	r.fn.Stdout, r.fn.Stderr = r.fnLog, r.fnLog
	if err := r.fn.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the function: %w", err)
	}
	if err := waitForPort(addr, 30*time.Second); err != nil {
		r.Stop()
		return nil, fmt.Errorf("the function did not listen on %s: %w\n%s", addr, err, r.fnLog)
	}
	r.functions = filepath.Join(work, "functions.yaml")
	if err := pointFunctionsAt(filepath.Join(root, functionsFile), r.functions, addr); err != nil {
		r.Stop()
		return nil, err
	}
	return r, nil
}

// Stop stops the function.
func (r *Renderer) Stop() {
	if r.fn != nil && r.fn.Process != nil {
		_ = r.fn.Process.Kill()
		_ = r.fn.Wait()
	}
}

// Rendered is the output of one render.
type Rendered struct {
	// Objects are the XR and the composed resources.
	Objects []map[string]any
	// Results are the function's results (kind Result).
	Results []map[string]any
	// Raw is the CLI's output.
	Raw []byte
}

// Render renders one scenario. A CLI failure returns its output in the error.
func (r *Renderer) Render(ctx context.Context, s Scenario) (*Rendered, error) {
	args := []string{"composition", "render", s.XR, filepath.Join(r.root, compositionFile), r.functions,
		"--crossplane-binary=" + r.tools.Core, "--xrd=" + filepath.Join(r.root, xrdFile),
		"--include-function-results", "--include-full-xr", "--timeout=2m"}
	if s.Environments != "" {
		args = append(args, "--required-resources="+s.Environments)
	}
	for _, r := range s.Required {
		args = append(args, "--required-resources="+r)
	}
	if s.Observed != "" {
		args = append(args, "--observed-resources="+s.Observed)
	}
	cmd := exec.CommandContext(ctx, r.tools.CLI, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "CROSSPLANE_XPKG_CACHE="+filepath.Join(r.work, "xpkg-cache"))
	if err := cmd.Run(); err != nil {
		return nil, &RenderError{Scenario: s.Name, Err: err, Output: strings.TrimSpace(stderr.String() + "\n" + stdout.String())}
	}
	out := &Rendered{Raw: stdout.Bytes()}
	docs, err := splitYAML(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the rendered output: %w", s.Name, err)
	}
	for _, d := range docs {
		if d["kind"] == "Result" {
			out.Results = append(out.Results, d)
			continue
		}
		out.Objects = append(out.Objects, d)
	}
	return out, nil
}

// RenderError is a render that the CLI refused, with what it printed.
type RenderError struct {
	Scenario string
	Err      error
	Output   string
}

func (e *RenderError) Error() string {
	return fmt.Sprintf("%s: crossplane composition render failed (%v):\n%s", e.Scenario, e.Err, e.Output)
}

// Validate checks the rendered objects, and the native objects inside provider-kubernetes
// Objects, against the schemas with `crossplane resource validate`, offline.
func (r *Renderer) Validate(ctx context.Context, name string, rendered *Rendered) (string, error) {
	dir := filepath.Join(r.work, "validate", strings.ReplaceAll(name, "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var docs [][]byte
	var skipped []string
	for _, o := range append(rendered.Objects, manifests(rendered.Objects)...) {
		if group := strings.SplitN(fmt.Sprint(o["apiVersion"]), "/", 2)[0]; slices.Contains(r.tools.Unvalidated, group) {
			meta, _ := o["metadata"].(map[string]any)
			skipped = append(skipped, fmt.Sprintf("%v %v", o["kind"], meta["name"]))
			continue
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			return "", err
		}
		docs = append(docs, b)
	}
	resources := filepath.Join(dir, "resources.yaml")
	if err := os.WriteFile(resources, bytes.Join(docs, []byte("---\n")), 0o644); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, r.tools.CLI, "resource", "validate", strings.Join(r.tools.Schemas, ","), resources,
		"--crossplane-image=", "--cache-dir="+filepath.Join(r.work, "validate-cache"), "--error-on-missing-schemas")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: the rendered objects do not match their schemas:\n%s", name, out)
	}
	if len(skipped) > 0 {
		return string(out), &SkippedError{Objects: skipped}
	}
	return string(out), nil
}

// SkippedError says which objects could not be validated for want of their schemas.
type SkippedError struct {
	Objects []string
}

func (e *SkippedError) Error() string {
	return "NOT VALIDATED (their CRDs are in ../shared/crds, which this checkout lacks): " + strings.Join(e.Objects, ", ")
}

// manifests returns the objects that provider-kubernetes Objects carry.
func manifests(objects []map[string]any) []map[string]any {
	var out []map[string]any
	for _, o := range objects {
		if o["apiVersion"] != "kubernetes.crossplane.io/v1alpha2" || o["kind"] != "Object" {
			continue
		}
		spec, _ := o["spec"].(map[string]any)
		fp, _ := spec["forProvider"].(map[string]any)
		if m, ok := fp["manifest"].(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// pointFunctionsAt copies functions.yaml with the Development runtime aimed at addr.
func pointFunctionsAt(in, out, addr string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	docs, err := splitYAML(raw)
	if err != nil {
		return err
	}
	var outDocs [][]byte
	for _, d := range docs {
		meta, _ := d["metadata"].(map[string]any)
		annos, _ := meta["annotations"].(map[string]any)
		if annos == nil {
			return fmt.Errorf("%s: Function %v has no annotations", in, meta["name"])
		}
		annos[devTargetAnno] = addr
		b, err := yaml.Marshal(d)
		if err != nil {
			return err
		}
		outDocs = append(outDocs, b)
	}
	return os.WriteFile(out, bytes.Join(outDocs, []byte("---\n")), 0o644)
}

func splitYAML(raw []byte) ([]map[string]any, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []map[string]any
	for {
		d := map[string]any{}
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(d) > 0 {
			out = append(out, d)
		}
	}
}

func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitForPort(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
