package security

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// threatTableHeader opens every table of docs/security.md that lists threats, their guards
// and their tests.
const threatTableHeader = "| threat | guard | test that fails without it | make target |"

var (
	// testName is a Go test, fuzz target or benchmark as the tables name them: `TestX`.
	testName = regexp.MustCompile("`((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)`")
	// testFunc declares one.
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)\(`)
)

// threatRow is one row of a threat table.
type threatRow struct {
	section, threat, tests, target string
}

// TestEveryThreatNamesATestThatExists reads the threat tables of docs/security.md and fails
// on a row whose test column names no test (unless the row says the threat is accepted), on
// a named test that no _test.go of the repository declares, and on a row that does not say
// which make target runs it in make test. A test renamed or deleted then shows in the model.
func TestEveryThreatNamesATestThatExists(t *testing.T) {
	rows := threatRows(t, filepath.Join(repoRoot, "docs", "security.md"))
	if len(rows) < 30 {
		t.Fatalf("found %d threat rows in docs/security.md; the tables moved or their header changed from %q", len(rows), threatTableHeader)
	}
	declared := declaredTests(t)
	for _, r := range rows {
		where := r.section + ": " + r.threat
		if strings.TrimSpace(r.tests) == "accepted" {
			continue
		}
		names := testName.FindAllStringSubmatch(r.tests, -1)
		if len(names) == 0 {
			t.Errorf("%s\n  names no test (or says `accepted`): %q", where, r.tests)
		}
		for _, n := range names {
			if !declared[n[1]] {
				t.Errorf("%s\n  names %s, which no _test.go declares", where, n[1])
			}
		}
		if !strings.Contains(r.target, "make test") && !strings.Contains(r.target, "make e2e") && !strings.Contains(r.target, "make lint") {
			t.Errorf("%s\n  names no make target of make test (make test, make e2e or make lint): %q", where, r.target)
		}
	}
}

func threatRows(t *testing.T, path string) []threatRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []threatRow
	section, inTable := "", false
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section, inTable = strings.TrimPrefix(line, "## "), false
		case line == threatTableHeader:
			inTable = true
		case !strings.HasPrefix(line, "|"):
			inTable = false
		case inTable && !strings.HasPrefix(line, "|---"):
			cells := splitRow(line)
			if len(cells) != 4 {
				t.Errorf("%s: a threat row with %d cells, not 4: %s", section, len(cells), line)
				continue
			}
			rows = append(rows, threatRow{section: section, threat: cells[0], tests: cells[2], target: cells[3]})
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// splitRow splits a Markdown table row at the pipes that are not escaped (\|).
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// declaredTests are the test and fuzz functions of every _test.go of the repository.
func declaredTests(t *testing.T) map[string]bool {
	t.Helper()
	declared := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "_output" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllSubmatch(data, -1) {
			declared[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return declared
}
