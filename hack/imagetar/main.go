// Command imagetar writes a single-layer OCI runtime image holding one static binary, as an
// image tarball that `crossplane xpkg build --embed-runtime-image-tarball` embeds. It needs
// no Docker engine and no registry, neither of which the build machines have.
//
//	imagetar -binary _output/bin/function-scs-kaas -path /function -port 9443 -o runtime.tar
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonRoot is the user the binary runs as, as in distroless images.
const nonRoot = 65532

func main() {
	binary := flag.String("binary", "", "the static binary to put into the image")
	path := flag.String("path", "/function", "where the binary goes in the image; also the entrypoint")
	port := flag.Int("port", 9443, "the port the binary listens on")
	tag := flag.String("tag", "example.org/runtime:latest", "the image reference recorded in the tarball")
	out := flag.String("o", "runtime.tar", "the image tarball to write")
	flag.Parse()
	if err := run(*binary, *path, *port, *tag, *out); err != nil {
		fmt.Fprintln(os.Stderr, "imagetar:", err)
		os.Exit(1)
	}
}

func run(binary, path string, port int, tag, out string) error {
	data, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar(path, data))), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Config.Entrypoint = []string{path}
	cfg.Config.User = strconv.Itoa(nonRoot)
	cfg.Config.ExposedPorts = map[string]struct{}{fmt.Sprintf("%d/tcp", port): {}}
	// A fixed creation time keeps the image, and so the package, reproducible.
	cfg.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	ref, err := name.ParseReference(tag)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(out, ref, img)
}

// layerTar is a tar with the binary at path, executable, owned by the non-root user.
func layerTar(path string, data []byte) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: path[1:], Mode: 0o755, Size: int64(len(data)), Uid: nonRoot, Gid: nonRoot, ModTime: time.Unix(0, 0)})
	_, _ = tw.Write(data)
	_ = tw.Close()
	return buf.Bytes()
}
