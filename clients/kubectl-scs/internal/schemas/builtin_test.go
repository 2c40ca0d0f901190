package schemas

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "copy the built-in schemas from their sources")

const repoRoot = "../../../.."

// TestBuiltinSchemasAreCurrent fails when an embedded schema differs from its source:
// `make generate` (this test with -update) copies them again.
func TestBuiltinSchemasAreCurrent(t *testing.T) {
	for _, src := range builtinSources {
		t.Run(src.File, func(t *testing.T) {
			want, err := os.ReadFile(sourcePath(t, src)) //nolint:gosec // G304: a path of the table above
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("builtin", src.File)
			if *update {
				if err := os.WriteFile(file, want, 0o600); err != nil {
					t.Fatal(err)
				}
				return
			}
			got, err := builtinFiles.ReadFile("builtin/" + src.File)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("builtin/%s is stale: run make generate", src.File)
			}
		})
	}
}

// sourcePath finds the source of an embedded schema: in this repository, in the module
// cache (downloaded if need be, checked against the pinning tool's go.sum), or in
// ../shared/crds, which only the build machines have.
func sourcePath(t *testing.T, src builtinSource) string {
	t.Helper()
	switch {
	case src.RepoPath != "":
		return filepath.Join(repoRoot, src.RepoPath)
	case src.Module != "":
		cmd := exec.Command("go", "mod", "download", "-json", src.Module)
		cmd.Dir = filepath.Join(repoRoot, "hack", "tools", src.ToolDir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go mod download %s in hack/tools/%s: %v", src.Module, src.ToolDir, err)
		}
		var mod struct{ Dir string }
		if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
			t.Fatalf("go mod download %s: no directory in %s", src.Module, out)
		}
		return filepath.Join(mod.Dir, src.ModulePath)
	default:
		dir := filepath.Join(repoRoot, "..", "shared", "crds")
		if _, err := os.Stat(dir); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: CI needs the upstream schemas to check the built-in copies", dir)
			}
			t.Skipf("%s is missing (a fresh clone has no ../shared): the built-in copy of %s is not compared", dir, src.SharedPath)
		}
		return filepath.Join(dir, src.SharedPath)
	}
}

// TestGardenerVersion: reports name the version of Gardener's validation that go.mod requires.
func TestGardenerVersion(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\tgithub.com/gardener/gardener " + gardenerVersion + "\n"; !bytes.Contains(data, []byte(want)) {
		t.Errorf("go.mod does not require github.com/gardener/gardener %s: update gardenerVersion in shoot.go", gardenerVersion)
	}
}
