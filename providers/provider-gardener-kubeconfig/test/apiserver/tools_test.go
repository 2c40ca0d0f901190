package apiserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository root seen from this package.
const repoRoot = "../../../.."

// toolDir returns the directory of a tool the repository builds into its cache
// (hack/tools/build.sh): the SCS_KAAS_TOOL_<NAME> variable the Makefile exports, or what
// build.sh --dir says (which builds nothing). It returns "" when the binary is not there.
func toolDir(t *testing.T, name, binary string) string {
	t.Helper()
	dir := os.Getenv("SCS_KAAS_TOOL_" + strings.ToUpper(name))
	if dir == "" {
		out, err := exec.Command(filepath.Join(repoRoot, "hack", "tools", "build.sh"), "--dir", name).Output()
		if err != nil {
			return ""
		}
		dir = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(dir, binary)); err != nil {
		return ""
	}
	return dir
}

// buildCommand builds a command of this module into dir.
func buildCommand(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}
