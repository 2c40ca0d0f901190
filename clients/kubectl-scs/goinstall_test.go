package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

const (
	rootModule    = "github.com/SovereignCloudStack/scs-kaas"
	kubectlModule = rootModule + "/clients/kubectl-scs"
	// The version the test publishes both modules at, in a module proxy of its own.
	testVersion = "v0.0.0-test"
)

// TestGoInstallRelease installs kubectl-scs as a user does, with
//
//	go install github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs@<version>
//
// from a module proxy that holds this checkout as a release publishes it (docs/cli.md,
// Releasing): the root module and kubectl-scs at one version, kubectl-scs's go.mod without
// its replace and requiring the root module at that version. The modules they require come
// from the local module cache (from GOPROXY only where it lacks one); the checksum database
// checks them as for any user, ours excepted: they are not published.
//
// "cgo" installs with cgo on, as go install and go build have it on any machine with a C
// compiler: the rest of make test builds with CGO_ENABLED=0, which hid that the plugin did
// not link with cgo (issue 43: Gardener's validation reaches a cgo zstd binding). make
// cli-cgo runs it in make test. "nocgo" installs with cgo off; "replace" shows that go
// install refuses kubectl-scs with its go.mod as checked in, which is why a release
// rewrites it.
//
// It builds the whole plugin (minutes on a cold build cache), so it runs only when
// SCS_KAAS_TEST_GO_INSTALL=1.
func TestGoInstallRelease(t *testing.T) {
	if os.Getenv("SCS_KAAS_TEST_GO_INSTALL") != "1" {
		t.Skip("set SCS_KAAS_TEST_GO_INSTALL=1 to go install kubectl-scs from a release-like module proxy (make cli-cgo does, with cgo on)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go cannot be run (%v): go install is not checked", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git cannot be run (%v): it lists the files of the checkout that a release tag holds", err)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command(goCmd, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}

	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	files := checkoutFiles(t, repo)

	// The root module as its release tag vX holds it (zip leaves out the nested modules).
	rootZip := publish(t, repo, proxy, module.Version{Path: rootModule, Version: testVersion}, files, "", nil)

	// kubectl-scs as its release tag clients/kubectl-scs/vX holds it: go.mod without the
	// replace, requiring the root module at vX, and go.sum with the root module's hashes.
	gomodPath := filepath.Join(repo, "clients", "kubectl-scs", "go.mod")
	checkedIn, err := os.ReadFile(gomodPath)
	if err != nil {
		t.Fatal(err)
	}
	released, err := releaseGoMod(checkedIn, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(repo, "clients", "kubectl-scs", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum = append(gosum, sumLines(t, rootModule, testVersion, rootZip, rootMod)...)
	publish(t, repo, proxy, module.Version{Path: kubectlModule, Version: testVersion}, files, "clients/kubectl-scs/",
		map[string][]byte{"go.mod": released, "go.sum": gosum})
	// And as checked in, at a version of its own, for the refusal.
	const checkedInVersion = "v0.0.0-checkedin"
	publish(t, repo, proxy, module.Version{Path: kubectlModule, Version: checkedInVersion}, files, "clients/kubectl-scs/", nil)

	// A module cache of its own, so that nothing of the test version stays in the user's:
	// the modules are immutable there, and the next run would find this one's. -trimpath,
	// as the release binaries are built, keys the build cache by module and version rather
	// than by directory, so the dependencies built before come from the build cache.
	install := func(t *testing.T, version, cgo string) (string, []byte, error) {
		gobin := filepath.Join(t.TempDir(), "bin")
		cmd := exec.Command(goCmd, "install", "-trimpath", kubectlModule+"@"+version)
		cmd.Dir = t.TempDir() // outside any module, as a user runs it
		cmd.Env = append(os.Environ(),
			"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(goEnv("GOMODCACHE"), "cache", "download"))+","+goEnv("GOPROXY"),
			"GONOSUMDB=github.com/SovereignCloudStack", // not in the checksum database: never published
			"GOMODCACHE="+filepath.Join(tmp, "modcache"),
			"GOFLAGS="+strings.TrimSpace(goEnv("GOFLAGS")+" -modcacherw"), // so that t.TempDir can remove it
			"GOBIN="+gobin,
			"GOWORK=off",
			"CGO_ENABLED="+cgo,
		)
		t.Logf("$ CGO_ENABLED=%s go install -trimpath %s@%s", cgo, kubectlModule, version)
		out, err := cmd.CombinedOutput()
		return filepath.Join(gobin, "kubectl-scs"), out, err
	}

	t.Run("replace", func(t *testing.T) {
		_, out, err := install(t, checkedInVersion, "0")
		if err == nil || !strings.Contains(string(out), "replace directives") {
			t.Fatalf("go install of kubectl-scs with its go.mod as checked in: err %v, want a refusal for its replace directive; output:\n%s", err, out)
		}
		t.Logf("refused, as a release must avoid:\n%s", out)
	})

	for _, tc := range []struct{ name, cgo string }{{"cgo", "1"}, {"nocgo", "0"}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cgo == "1" {
				cc := strings.Fields(goEnv("CC"))
				if len(cc) == 0 {
					cc = []string{"gcc"}
				}
				if _, err := exec.LookPath(cc[0]); err != nil {
					t.Fatalf("no C compiler (%v): go install would build without cgo here, and the cgo build of issue 43 would go unchecked; install gcc", err)
				}
			}
			bin, out, err := install(t, testVersion, tc.cgo)
			if err != nil {
				t.Fatalf("go install: %v\n%s", err, out)
			}
			info, err := exec.Command(goCmd, "version", "-m", bin).Output()
			if err != nil {
				t.Fatalf("go version -m: %v", err)
			}
			for _, want := range []string{
				"\tmod\t" + kubectlModule + "\t" + testVersion,
				"\tdep\t" + rootModule + "\t" + testVersion,
				"\tbuild\tCGO_ENABLED=" + tc.cgo + "\n",
			} {
				if !strings.Contains(string(info), want) {
					t.Errorf("go version -m %s lacks %q:\n%s", bin, want, info)
				}
			}
			help := exec.Command(bin, "--help")
			help.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
			out, err = help.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "SCSClusters") {
				t.Fatalf("kubectl-scs --help: %v\n%s", err, out)
			}
		})
	}
}

// checkoutFiles lists the files of the checkout, relative to repo, as git sees them: tracked
// and untracked, not ignored (so _output/ stays out), present in the working tree.
func checkoutFiles(t *testing.T, repo string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v: not a git checkout, cannot list what a release tag holds", repo, err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if fi, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(f))); err == nil && fi.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	return files
}

// publish writes module m into the file-based module proxy at dir, as a proxy serves a
// tagged release: the files of the checkout under prefix, with override's contents instead
// where given. It returns the path of the zip.
func publish(t *testing.T, repo, dir string, m module.Version, files []string, prefix string, override map[string][]byte) string {
	t.Helper()
	var zf []modzip.File
	for _, f := range files {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		zf = append(zf, checkoutFile{rel: rel, path: filepath.Join(repo, filepath.FromSlash(f)), data: override[rel]})
	}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	v := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(v, m.Version+".zip")
	w, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := modzip.Create(w, m, zf); err != nil {
		t.Fatalf("zipping %s as a module proxy would: %v", m, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gomod := override["go.mod"]
	if gomod == nil {
		if gomod, err = os.ReadFile(filepath.Join(repo, filepath.FromSlash(prefix), "go.mod")); err != nil {
			t.Fatal(err)
		}
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, m.Version)
	for name, data := range map[string][]byte{m.Version + ".mod": gomod, m.Version + ".info": []byte(info)} {
		if err := os.WriteFile(filepath.Join(v, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The versions of the module, which go install reads for its deprecation notice.
	list, err := os.OpenFile(filepath.Join(v, "list"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintln(list, m.Version); err != nil {
		t.Fatal(err)
	}
	if err := list.Close(); err != nil {
		t.Fatal(err)
	}
	return zipPath
}

// releaseGoMod is kubectl-scs's go.mod as a release commits it: no replace directives (go
// install refuses a module that has any), the root module required at the release version.
func releaseGoMod(gomod []byte, version string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range append([]*modfile.Replace(nil), f.Replace...) {
		if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
			return nil, err
		}
	}
	if err := f.AddRequire(rootModule, version); err != nil {
		return nil, err
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// sumLines are the go.sum lines of module path at version, from its zip and go.mod.
func sumLines(t *testing.T, modPath, version, zipPath string, gomod []byte) []byte {
	t.Helper()
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	hmod, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, "%s %s %s\n%s %s/go.mod %s\n", modPath, version, h, modPath, version, hmod)
}

// checkoutFile is a file of the checkout in a module zip, with other contents where data
// is set.
type checkoutFile struct {
	rel, path string
	data      []byte
}

func (f checkoutFile) Path() string { return path.Clean(f.rel) }

func (f checkoutFile) Lstat() (os.FileInfo, error) {
	fi, err := os.Lstat(f.path)
	if err != nil || f.data == nil {
		return fi, err
	}
	return sizedInfo{fi, int64(len(f.data))}, nil
}

func (f checkoutFile) Open() (io.ReadCloser, error) {
	if f.data != nil {
		return io.NopCloser(bytes.NewReader(f.data)), nil
	}
	return os.Open(f.path)
}

type sizedInfo struct {
	os.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }
