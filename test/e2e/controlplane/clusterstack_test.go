package controlplane

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExtractDir: only the chart's directory of a GitHub archive lands in the cache,
// below the archive's top-level directory, and nothing lands when it is not there.
func TestExtractDir(t *testing.T) {
	archive := func(files map[string]string) *bytes.Buffer {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write([]byte(files[n])); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
		return &buf
	}
	top := "cluster-stacks-" + ClusterStacksCommit + "/"
	dest := filepath.Join(t.TempDir(), "cache", "chart")
	err := extractDir(archive(map[string]string{
		top + scs2ChartPath + "/Chart.yaml":                   "name: c",
		top + scs2ChartPath + "/templates/cluster-class.yaml": "kind: ClusterClass",
		top + "providers/openstack/scs2/versions.yaml":        "outside the chart",
		top + "README.md": "outside the chart",
	}), scs2ChartPath, dest)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if diff := cmp.Diff([]string{"Chart.yaml", "templates/cluster-class.yaml"}, got); diff != "" {
		t.Errorf("extracted files: -want, +got:\n%s", diff)
	}

	missing := filepath.Join(t.TempDir(), "chart")
	if err := extractDir(archive(map[string]string{top + "README.md": "x"}), scs2ChartPath, missing); err == nil {
		t.Errorf("an archive without the chart extracted without error")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed extraction left %s behind (%v)", missing, err)
	}
}

// TestRenderClusterClass renders the real scs2 chart as the Cluster Stack operator names
// its releases: every object is named after the release and the stack version, so that
// the ClusterStackRelease openstack-scs2-1-34-v3 finds its ClusterClass.
func TestRenderClusterClass(t *testing.T) {
	root, err := FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(root, "..", "shared", "upstream", "cluster-stacks", filepath.FromSlash(scs2ChartPath))
	if _, err := os.Stat(filepath.Join(chart, "Chart.yaml")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the scs2 chart is missing in CI: %v", err)
		}
		t.Skipf("skipped: the scs2 chart is not at %s (../shared/upstream, absent from a fresh clone)", chart)
	}
	objs, err := RenderClusterClass(chart, "openstack-scs2-1-34", "v3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+"/"+o.GetName())
	}
	sort.Strings(got)
	want := []string{
		"ClusterClass/openstack-scs2-1-34-v3",
		"KubeadmConfigTemplate/openstack-scs2-1-34-v3-default-worker",
		"KubeadmControlPlaneTemplate/openstack-scs2-1-34-v3-control-plane",
		"OpenStackClusterTemplate/openstack-scs2-1-34-v3-cluster",
		"OpenStackMachineTemplate/openstack-scs2-1-34-v3-control-plane",
		"OpenStackMachineTemplate/openstack-scs2-1-34-v3-default-worker",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered objects: -want, +got:\n%s", diff)
	}
}
