package controlplane

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The SCS scs2 Cluster Stack for OpenStack: its ClusterClass chart, rendered the way the
// Cluster Stack operator does (helm template, release <provider>-<stack>-<major>-<minor>,
// chart version = the stack version), so that a ClusterStackRelease named
// openstack-scs2-1-34-v3 finds the ClusterClass openstack-scs2-1-34-v3 and its templates.

const (
	// ClusterStacksCommit pins the upstream the chart comes from
	// (../shared/upstream/README.md names it; the copy there is identical).
	ClusterStacksCommit = "a931cdb2b63e1c020925e9e5fd6cdb572a0c18ea"
	clusterStacksRepo   = "SovereignCloudStack/cluster-stacks"
	scs2ChartPath       = "providers/openstack/scs2/cluster-class"
)

// ErrNoClusterStack says that the scs2 chart is neither in ../shared nor downloadable here.
var ErrNoClusterStack = errors.New("the SCS scs2 Cluster Stack chart is not available")

// SCS2Chart returns the directory of the scs2 ClusterClass chart: ../shared/upstream next to
// the repository where the machine has it, else a copy in the tool cache, downloaded once
// from the pinned upstream commit when the network allows. Without either it returns an
// error wrapping ErrNoClusterStack that says what was tried.
func SCS2Chart(ctx context.Context, repoRoot string, logf func(string, ...any)) (string, error) {
	shared := filepath.Join(repoRoot, "..", "shared", "upstream", "cluster-stacks", filepath.FromSlash(scs2ChartPath))
	if _, err := os.Stat(filepath.Join(shared, "Chart.yaml")); err == nil {
		return shared, nil
	}
	cached := filepath.Join(cacheRoot(), "upstream", "cluster-stacks-"+ClusterStacksCommit, filepath.FromSlash(scs2ChartPath))
	if _, err := os.Stat(filepath.Join(cached, "Chart.yaml")); err == nil {
		return cached, nil
	}
	url := "https://codeload.github.com/" + clusterStacksRepo + "/tar.gz/" + ClusterStacksCommit
	logf("%s not found: downloading the scs2 chart from %s", shared, url)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: %s is missing and %s cannot be reached: %v", ErrNoClusterStack, shared, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: %s is missing and %s answered %s", ErrNoClusterStack, shared, url, resp.Status)
	}
	if err := extractDir(resp.Body, scs2ChartPath, cached); err != nil {
		return "", fmt.Errorf("%w: extracting %s from %s: %v", ErrNoClusterStack, scs2ChartPath, url, err)
	}
	return cached, nil
}

// cacheRoot is the tool cache of hack/tools/build.sh.
func cacheRoot() string {
	if d := os.Getenv("SCS_KAAS_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "scs-kaas")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "scs-kaas")
}

// extractDir writes the files under dir (a slash path inside the archive's single top-level
// directory, as GitHub's archives have) from a .tar.gz into dest, atomically: dest exists
// complete or not at all.
func extractDir(r io.Reader, dir, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tr := tar.NewReader(gz)
	found := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		// Strip the top-level directory (<repo>-<commit>/).
		name := path.Clean(h.Name)
		if i := strings.IndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		} else {
			continue
		}
		rel, ok := strings.CutPrefix(name, dir+"/")
		if !ok || h.Typeflag != tar.TypeReg || strings.Contains(rel, "..") {
			continue
		}
		p := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, 16<<20))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		found++
	}
	if found == 0 {
		return fmt.Errorf("no files under %s", dir)
	}
	return os.Rename(tmp, dest)
}

// RenderClusterClass renders the ClusterClass chart as `helm template <release>` with the
// chart's version set to version: the ClusterClass and its templates, named
// <release>-<version>[-...], without a namespace.
func RenderClusterClass(chartDir, release, version string) ([]*unstructured.Unstructured, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	ch.Metadata.Version = version
	values, err := chartutil.ToRenderValues(ch, map[string]any{}, chartutil.ReleaseOptions{Name: release, IsInstall: true}, nil)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, values)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(files[n], "\n---") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			if len(m) == 0 {
				continue
			}
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out, nil
}

// InstallClusterStack installs, into namespace of c, the ClusterClass and templates of each
// Cluster Stack release (such as openstack-scs2-1-34-v3: release openstack-scs2-1-34,
// version v3), rendered from chartDir. Cluster API must run in c: the chart's objects are
// v1beta1 and go through its conversion and admission webhooks.
func InstallClusterStack(ctx context.Context, c *Cluster, chartDir, namespace string, releases ...string) error {
	var objs []*unstructured.Unstructured
	for _, r := range releases {
		i := strings.LastIndex(r, "-v")
		if i < 0 {
			return fmt.Errorf("Cluster Stack release %q: want <provider>-<stack>-<major>-<minor>-v<n>", r)
		}
		rendered, err := RenderClusterClass(chartDir, r[:i], r[i+1:])
		if err != nil {
			return fmt.Errorf("rendering the ClusterClass of %s: %w", r, err)
		}
		for _, o := range rendered {
			o.SetNamespace(namespace)
		}
		objs = append(objs, rendered...)
	}
	return c.ApplyObjects(ctx, objs...)
}
