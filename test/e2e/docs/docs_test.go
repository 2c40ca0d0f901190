// Package docs checks the repository's Markdown: every relative link leads to a file, every
// table is well formed, and the SCS standard's text has the front matter the SCS standards
// repository requires.
package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"sigs.k8s.io/yaml"
)

const repo = "../../.."

// markdownFiles are the repository's Markdown files outside build output and dependencies.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "_output" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// TestMarkdownLinksAndTables: relative links (not URLs, not anchors alone) name files that
// exist, and every table row has as many cells as its header.
func TestMarkdownLinksAndTables(t *testing.T) {
	for _, f := range markdownFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, f)
		doc := md.Parser().Parse(text.NewReader(src))
		err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.Link:
				dest := string(n.Destination)
				if strings.Contains(dest, "://") || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "mailto:") {
					break
				}
				path, _, _ := strings.Cut(dest, "#")
				if _, err := os.Stat(filepath.Join(filepath.Dir(f), path)); err != nil {
					t.Errorf("%s: link %q leads nowhere", rel, dest)
				}
			case *extast.Table:
				header := 0
				for row := n.FirstChild(); row != nil; row = row.NextSibling() {
					cells := row.ChildCount()
					if header == 0 {
						header = cells
					} else if cells != header {
						t.Errorf("%s: a table row has %d cells, its header %d", rel, cells, header)
					}
				}
			}
			return ast.WalkContinue, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

var frontMatter = regexp.MustCompile(`(?s)\A---\n(.*?)\n---\n`)

// TestStandardText: the standard's front matter says what the SCS standards repository
// expects of a draft in the KaaS track, its sections are there, and it renders.
func TestStandardText(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repo, "docs", "standard", "scs-*.md"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one standard text in docs/standard, found %v (%v)", files, err)
	}
	src, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	m := frontMatter.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s has no front matter", files[0])
	}
	var fm map[string]any
	if err := yaml.Unmarshal(m[1], &fm); err != nil {
		t.Fatalf("front matter: %v", err)
	}
	for k, want := range map[string]string{"type": "Standard", "status": "Draft", "track": "KaaS"} {
		if fm[k] != want {
			t.Errorf("front matter %s = %v, want %s", k, fm[k], want)
		}
	}
	if s, _ := fm["title"].(string); s == "" {
		t.Errorf("front matter has no title")
	}
	for _, section := range []string{"## Introduction", "## Motivation", "## Terminology", "## The standard", "## Conformance tests", "## Implementations"} {
		if !bytes.Contains(src, []byte("\n"+section+"\n")) {
			t.Errorf("the standard lacks the section %q", section)
		}
	}
	var out bytes.Buffer
	if err := md.Convert(src[len(m[0]):], &out); err != nil {
		t.Fatalf("rendering: %v", err)
	}
	if !bytes.Contains(out.Bytes(), []byte("<table>")) {
		t.Errorf("the rendered standard has no conformance table")
	}
}
