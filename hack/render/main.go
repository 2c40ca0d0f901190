// Command render renders every example under examples/render through the real crossplane
// CLI and the function running as a local process, validates the output offline against
// the upstream schemas, and prints the native objects. It is what `make render` runs; the
// Makefile builds the tools it needs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	var tools Tools
	var schemas, unvalidated, work string
	flag.StringVar(&tools.CLI, "cli", "", "the crossplane CLI binary")
	flag.StringVar(&tools.Core, "core", "", "the Crossplane core binary")
	flag.StringVar(&tools.Function, "function", "", "the function-scs-kaas binary")
	flag.StringVar(&schemas, "schemas", "", "comma-separated CRD/XRD files or directories to validate against")
	flag.StringVar(&unvalidated, "unvalidated", "", "comma-separated API groups whose CRDs are not at hand; their objects are not validated")
	flag.StringVar(&work, "out", "_output/render", "directory for rendered outputs")
	flag.Parse()
	tools.Schemas = strings.Split(schemas, ",")
	if unvalidated != "" {
		tools.Unvalidated = strings.Split(unvalidated, ",")
	}
	if tools.CLI == "" || tools.Core == "" || tools.Function == "" || schemas == "" {
		fmt.Fprintln(os.Stderr, "render: -cli, -core, -function and -schemas are required (make render sets them)")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, tools, work); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, tools Tools, work string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	scenarios, err := Scenarios(".")
	if err != nil {
		return err
	}
	r, err := Start(ctx, ".", work, tools)
	if err != nil {
		return err
	}
	defer r.Stop()

	var natives []string
	failed := 0
	for _, s := range scenarios {
		rendered, err := r.Render(ctx, s)
		if err != nil {
			return err
		}
		file := filepath.Join(work, strings.ReplaceAll(s.Name, "/", "-")+".yaml")
		if err := os.WriteFile(file, rendered.Raw, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(w, "== %s (%s)\n", s.Name, file)
		summarise(w, rendered)
		var skipped *SkippedError
		if _, err := r.Validate(ctx, s.Name, rendered); errors.As(err, &skipped) {
			fmt.Fprintf(w, "   schemas: the others match; %s\n", skipped)
		} else if err != nil {
			failed++
			fmt.Fprintf(w, "   schemas: INVALID\n%s\n", err)
		} else {
			fmt.Fprintf(w, "   schemas: every object matches its CRD or XRD\n")
		}
		if s.Observed == "" {
			for _, m := range append(manifests(rendered.Objects), directNatives(rendered.Objects)...) {
				b, err := yaml.Marshal(m)
				if err != nil {
					return err
				}
				natives = append(natives, fmt.Sprintf("# %s %s rendered from %s\n%s", m["apiVersion"], m["kind"], s.XR, b))
			}
		}
	}
	for _, n := range natives {
		fmt.Fprintf(w, "\n---\n%s", n)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d renders do not match their schemas", failed, len(scenarios))
	}
	return nil
}

// summarise prints the XR's phase, conditions and the composed resources.
func summarise(w io.Writer, rendered *Rendered) {
	for _, o := range rendered.Objects {
		meta, _ := o["metadata"].(map[string]any)
		annos, _ := meta["annotations"].(map[string]any)
		if name, ok := annos["crossplane.io/composition-resource-name"]; ok {
			fmt.Fprintf(w, "   composed %-16v %v %v %v\n", name, o["apiVersion"], o["kind"], meta["name"])
			continue
		}
		status, _ := o["status"].(map[string]any)
		fmt.Fprintf(w, "   %v %v: phase %v", o["kind"], meta["name"], status["phase"])
		if url, ok := status["apiServerURL"]; ok {
			fmt.Fprintf(w, ", API server %v", url)
		}
		fmt.Fprintln(w)
		conds, _ := status["conditions"].([]any)
		var lines []string
		for _, c := range conds {
			c, _ := c.(map[string]any)
			lines = append(lines, fmt.Sprintf("   condition %v=%v (%v) %v", c["type"], c["status"], c["reason"], c["message"]))
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	for _, r := range rendered.Results {
		fmt.Fprintf(w, "   result %v: %v\n", r["severity"], r["message"])
	}
}

// directNatives are composed native objects that are not wrapped in an Object (a Shoot
// composed in a local garden cluster, a Cluster API Cluster, Magnum managed resources).
func directNatives(objects []map[string]any) []map[string]any {
	var out []map[string]any
	for _, o := range objects {
		meta, _ := o["metadata"].(map[string]any)
		annos, _ := meta["annotations"].(map[string]any)
		if _, composed := annos["crossplane.io/composition-resource-name"]; composed && o["kind"] != "Object" {
			out = append(out, o)
		}
	}
	return out
}
