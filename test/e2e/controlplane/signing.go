package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	tuf "github.com/theupdateframework/go-tuf"
)

// Signing is how the control plane signs the packages it pushes (PackageInstall.Verify) and
// what its Crossplane verifies them against, all on this machine: the release's cosign key
// pair, a transparency log standing in for Rekor (transparencyLog), and a TUF root of our
// own that names that log, as sigstore's public TUF repository names Rekor. Crossplane reads
// its trust (Fulcio roots, Rekor and CT log keys) from TUF when it starts with signature
// verification, from sigstore's CDN unless TUF_ROOT holds a root that is fresh.
type Signing struct {
	// Dir holds the key pairs, the TUF repository and TUF_ROOT.
	Dir string
	// KeyFile and PublicKeyFile are the cosign key pair the packages are signed with (no
	// password): what a release's signing key is to an operator.
	KeyFile, PublicKeyFile string
	// LogURL is the transparency log cosign records signatures in (--rekor-url).
	LogURL string
	// TUFRoot is cosign's TUF cache holding our root (TUF_ROOT), for signing and cosign verify.
	TUFRoot string
	// tufRepository is the published TUF repository the roots trust (a file:// mirror).
	tufRepository string

	cosign string
	server *http.Server
}

// signingExpiry bounds the TUF metadata of a run: a run directory outlives its test (make
// demo's), but nothing signs or verifies against it a year later.
const signingExpiry = 365 * 24 * time.Hour

// startSigning makes the control plane's Signing under the run directory: the packages' key
// pair, the log (served by this process: only Start signs) and the TUF root.
func (e *Env) startSigning(ctx context.Context) error {
	s := &Signing{Dir: filepath.Join(e.RunDir, "signing"), cosign: e.tools.Cosign()}
	if err := os.RemoveAll(s.Dir); err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return err
	}
	var err error
	if s.KeyFile, s.PublicKeyFile, err = GenerateKeyPair(ctx, s.cosign, filepath.Join(s.Dir, "release")); err != nil {
		return err
	}
	logKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	log, err := newTransparencyLog(logKey)
	if err != nil {
		return err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.server = &http.Server{Handler: log, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.server.Serve(listener) }()
	s.LogURL = "http://" + listener.Addr().String()
	e.signing = s

	logPublicKey, err := publicKeyPEM(&logKey.PublicKey)
	if err != nil {
		return err
	}
	// A Fulcio root is required even to verify by key; ours is one nobody holds the key of.
	fulcio, err := newCA("fulcio-root-unused")
	if err != nil {
		return err
	}
	repository := filepath.Join(s.Dir, "tuf-repository")
	if err := writeTUFRepository(repository, []tufTarget{
		{"fulcio.crt.pem", "Fulcio", fulcio.certPEM},
		{"rekor.pub", "Rekor", logPublicKey},
		// Checked for at start, never used to verify by key: the log's key serves.
		{"ctfe.pub", "CTFE", logPublicKey},
	}); err != nil {
		return err
	}
	s.tufRepository = filepath.Join(repository, "repository")
	s.TUFRoot = filepath.Join(s.Dir, "tuf-root")
	return s.InitializeTUFRoot(ctx, s.TUFRoot)
}

// InitializeTUFRoot makes dir a TUF root that trusts our repository, as `cosign initialize`
// makes one for an operator: cosign's TUF_ROOT, or Crossplane's, which Crossplane places
// under its package cache whatever TUF_ROOT it is given (XPKG_CACHE_DIR/.sigstore/root).
func (s *Signing) InitializeTUFRoot(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, s.cosign, "initialize", "--mirror=file://"+s.tufRepository, "--root="+filepath.Join(s.tufRepository, "root.json"))
	cmd.Env = append(os.Environ(), "TUF_ROOT="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cosign initialize: %w\n%s", err, out)
	}
	return nil
}

// Signing is the control plane's Signing (PackageInstall.Verify), or nil.
func (e *Env) Signing() *Signing { return e.signing }

// stop stops serving the log.
func (s *Signing) stop() {
	if s != nil && s.server != nil {
		_ = s.server.Close()
	}
}

// Sign signs the pushed package ref (best by digest) with the key pair of keyFile through
// hack/sign.sh, as a release is signed, and attaches sbom as its SBOM attestation unless
// sbom is empty. The signature is logged in the control plane's log; the registry's CA is
// trusted.
func (s *Signing) Sign(ctx context.Context, repoRoot string, registry *Registry, keyFile, ref, sbom string) error {
	arg := ref
	if sbom != "" {
		arg += "=" + sbom
	}
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, "hack", "sign.sh"), arg)
	cmd.Env = append(os.Environ(),
		"COSIGN="+s.cosign,
		"COSIGN_KEY="+keyFile,
		"COSIGN_PASSWORD=",
		"REKOR_URL="+s.LogURL,
		"TUF_ROOT="+s.TUFRoot,
		"SSL_CERT_FILE="+registry.CAFile,
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/sign.sh %s: %w\n%s", arg, err, out)
	}
	return nil
}

// GenerateKeyPair makes a cosign key pair without a password, prefix.key and prefix.pub,
// with the cosign binary cosign.
func GenerateKeyPair(ctx context.Context, cosign, prefix string) (key, pub string, err error) {
	cmd := exec.CommandContext(ctx, cosign, "generate-key-pair", "--output-key-prefix="+prefix)
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("cosign generate-key-pair: %w\n%s", err, out)
	}
	return prefix + ".key", prefix + ".pub", nil
}

func publicKeyPEM(pub *ecdsa.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// tufTarget is a file of the TUF repository and its sigstore usage (Fulcio, Rekor, CTFE).
type tufTarget struct {
	name, usage string
	data        []byte
}

// writeTUFRepository writes a TUF repository in the layout sigstore's TUF client reads
// (go-tuf v0.7, which that client uses) into dir/repository: root, targets, snapshot and
// timestamp metadata, each role with a key of its own, and the targets with sigstore's
// custom metadata.
func writeTUFRepository(dir string, targets []tufTarget) error {
	repo, err := tuf.NewRepoIndent(tuf.FileSystemStore(dir, nil), "", " ")
	if err != nil {
		return err
	}
	if err := repo.Init(false); err != nil {
		return err
	}
	expires := time.Now().Add(signingExpiry)
	for _, role := range []string{"root", "targets", "snapshot", "timestamp"} {
		if _, err := repo.GenKeyWithExpires(role, expires); err != nil {
			return fmt.Errorf("TUF %s key: %w", role, err)
		}
	}
	staged := filepath.Join(dir, "staged", "targets")
	if err := os.MkdirAll(staged, 0o755); err != nil {
		return err
	}
	for _, t := range targets {
		if err := os.WriteFile(filepath.Join(staged, t.name), t.data, 0o644); err != nil {
			return err
		}
		custom, err := json.Marshal(map[string]any{"sigstore": map[string]string{"usage": t.usage, "status": "Active"}})
		if err != nil {
			return err
		}
		if err := repo.AddTargetWithExpires(t.name, custom, expires); err != nil {
			return fmt.Errorf("TUF target %s: %w", t.name, err)
		}
	}
	if err := repo.SnapshotWithExpires(expires); err != nil {
		return err
	}
	if err := repo.TimestampWithExpires(expires); err != nil {
		return err
	}
	return repo.Commit()
}
