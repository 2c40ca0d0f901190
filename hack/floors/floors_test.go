package floors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// config is the part of .golangci.yml this test reads: depguard's rules.
type config struct {
	Linters struct {
		Settings struct {
			Depguard struct {
				Rules map[string]rule `json:"rules"`
			} `json:"depguard"`
		} `json:"settings"`
	} `json:"linters"`
}

// rule is one depguard rule (golangci-lint v2 syntax).
type rule struct {
	ListMode string   `json:"list-mode"`
	Files    []string `json:"files"`
	Allow    []string `json:"allow"`
	Deny     []struct {
		Pkg  string `json:"pkg"`
		Desc string `json:"desc"`
	} `json:"deny"`
}

// pkg is what go list -json says about a package.
type pkg struct {
	ImportPath string
	Standard   bool
	DepOnly    bool
	Imports    []string
}

// floors are the rules the product module must keep; each must be in .golangci.yml.
var floors = map[string]string{"model": "lax", "apis": "strict"}

// TestImportFloors fails when a package of model/... reaches a denied package through any
// chain of imports, or a package of apis/... imports anything its rule does not allow.
func TestImportFloors(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rules := readRules(t, filepath.Join(root, ".golangci.yml"))
	for name, mode := range floors {
		r, ok := rules[name]
		if !ok {
			t.Fatalf(".golangci.yml has no depguard rule %q: the floor it names is not enforced", name)
		}
		if r.ListMode != mode {
			t.Fatalf("depguard rule %q has list-mode %q; this test reads it as %q", name, r.ListMode, mode)
		}
		dir := ruleDir(t, name, r)
		t.Run(name, func(t *testing.T) {
			pkgs, roots := goList(t, root, "./"+dir+"/...")
			if len(roots) == 0 {
				t.Fatalf("go list ./%s/... found no packages", dir)
			}
			var violations []string
			switch mode {
			case "lax":
				violations = denied(r, pkgs, roots)
			case "strict":
				violations = notAllowed(r, pkgs, roots)
			}
			for _, v := range violations {
				t.Errorf("%s", v)
			}
			if len(violations) > 0 {
				t.Logf("the floors are depguard's rules %q in .golangci.yml (docs/architecture.md)", name)
			}
		})
	}
}

// readRules reads depguard's rules from the golangci-lint configuration.
func readRules(t *testing.T, file string) map[string]rule {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("cannot read %s: %v", file, err)
	}
	return c.Linters.Settings.Depguard.Rules
}

// ruleDir is the directory of the product module a rule's files glob names: "**/model/**"
// is model. One positive glob of that shape per rule keeps the two readings the same.
func ruleDir(t *testing.T, name string, r rule) string {
	t.Helper()
	var dirs []string
	for _, f := range r.Files {
		if strings.HasPrefix(f, "!") || strings.HasPrefix(f, "$") {
			continue
		}
		d, pre := strings.CutPrefix(f, "**/")
		d, suf := strings.CutSuffix(d, "/**")
		if !pre || !suf || d == "" || strings.ContainsAny(d, "*?[{") {
			t.Fatalf("depguard rule %q: files glob %q is not of the shape **/<dir>/** this test reads", name, f)
		}
		dirs = append(dirs, d)
	}
	if len(dirs) != 1 {
		t.Fatalf("depguard rule %q names %d directories (%v); want one", name, len(dirs), dirs)
	}
	return dirs[0]
}

// goList runs go list -deps -json on pattern in dir: every package reached, and the import
// paths of the packages the pattern matched.
func goList(t *testing.T, dir, pattern string) (map[string]pkg, []string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,DepOnly,Imports", pattern)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pattern, err, stderr.String())
	}
	pkgs := map[string]pkg{}
	var roots []string
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
		if !p.DepOnly {
			roots = append(roots, p.ImportPath)
		}
	}
	sort.Strings(roots)
	return pkgs, roots
}

// matches reports whether path is prefix or inside it, the way depguard matches a prefix
// that ends in a slash or names a whole package tree.
func matches(path, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(path, prefix)
	}
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// denied walks the whole import graph from each root and reports every edge by which it
// enters a denied package (the importer is not denied itself), with one chain from a root
// and every root that reaches it.
func denied(r rule, pkgs map[string]pkg, roots []string) []string {
	isDenied := func(p string) string {
		for _, d := range r.Deny {
			if matches(p, d.Pkg) {
				return d.Pkg + " (" + d.Desc + ")"
			}
		}
		return ""
	}
	type edge struct{ from, to string }
	chains := map[edge][]string{}
	reachedFrom := map[edge][]string{}
	for _, root := range roots {
		parent := map[string]string{root: ""}
		queue := []string{root}
		seen := map[edge]bool{}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range pkgs[p].Imports {
				if isDenied(imp) != "" {
					e := edge{p, imp}
					if !seen[e] {
						seen[e] = true
						reachedFrom[e] = append(reachedFrom[e], root)
						if _, ok := chains[e]; !ok {
							chains[e] = append(chain(parent, p), imp)
						}
					}
					continue
				}
				if _, ok := parent[imp]; !ok {
					parent[imp] = p
					queue = append(queue, imp)
				}
			}
		}
	}
	var out []string
	for e, c := range chains {
		out = append(out, fmt.Sprintf("%s imports %s, denied: %s\n\tchain: %s\n\treached from %d package(s) of the floor: %s",
			e.from, e.to, isDenied(e.to), strings.Join(c, " -> "), len(reachedFrom[e]), strings.Join(reachedFrom[e], ", ")))
	}
	slices.Sort(out)
	return out
}

// chain is the import path from the root to p.
func chain(parent map[string]string, p string) []string {
	var c []string
	for ; p != ""; p = parent[p] {
		c = append(c, p)
	}
	slices.Reverse(c)
	return c
}

// notAllowed reports every import of a root that the rule does not allow ($gostd is the
// standard library).
func notAllowed(r rule, pkgs map[string]pkg, roots []string) []string {
	var out []string
	for _, root := range roots {
		for _, imp := range pkgs[root].Imports {
			ok := false
			for _, a := range r.Allow {
				if a == "$gostd" && pkgs[imp].Standard || a != "$gostd" && matches(imp, a) {
					ok = true
					break
				}
			}
			if !ok {
				out = append(out, fmt.Sprintf("%s imports %s: allowed are only %s", root, imp, strings.Join(r.Allow, ", ")))
			}
		}
	}
	return out
}
