package controlplane

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestSignaturesVerifyWithCosign signs a pushed image as the control plane signs its packages
// (hack/sign.sh: the release key, the stand-in log, an SBOM attestation) and checks it the
// way docs/install.md tells an operator to, with `cosign verify` and `cosign
// verify-attestation`, against the control plane's own trust (its TUF root, offline). A key
// that did not sign it and an attestation type that was not attached must fail: the check
// is not a formality. Crossplane's own verification is TestPackageSignatureVerification's.
func TestSignaturesVerifyWithCosign(t *testing.T) {
	root := liveTestRepoRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var tools Tools
	var err error
	if tools.CosignDir, err = toolDir(ctx, root, "cosign", "SCS_KAAS_TOOL_COSIGN", t.Logf); err != nil {
		t.Fatal(err)
	}
	e := &Env{RunDir: t.TempDir(), opts: Options{RepoRoot: root, Logf: t.Logf}, procs: map[string]*process{}, tools: tools}
	t.Cleanup(func() { _ = e.Stop() })
	registry, err := e.StartRegistry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.startSigning(ctx); err != nil {
		t.Fatal(err)
	}
	signing := e.Signing()

	ref, err := name.ParseReference(registry.Address + "/sovereigncloudstack/signed:v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	image, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, image, registry.RemoteOptions(ctx)...); err != nil {
		t.Fatal(err)
	}
	digest, err := image.Digest()
	if err != nil {
		t.Fatal(err)
	}
	byDigest := ref.Context().Digest(digest.String()).String()
	sbom := filepath.Join(t.TempDir(), "signed.cdx.json")
	if err := os.WriteFile(sbom, []byte(`{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,`+
		`"components":[{"type":"library","name":"example.com/module","version":"v1.0.0","purl":"pkg:golang/example.com/module@v1.0.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := signing.Sign(ctx, root, registry, signing.KeyFile, byDigest, sbom); err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := GenerateKeyPair(ctx, tools.Cosign(), filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}

	// cosign as an operator runs it (docs/install.md), the trust being the control plane's
	// instead of sigstore's public one.
	cosign := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, tools.Cosign(), args...)
		cmd.Env = append(os.Environ(), "TUF_ROOT="+signing.TUFRoot, "SSL_CERT_FILE="+registry.CAFile)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct {
		name string
		args []string
		// fails is what cosign says when it must refuse; empty: it must verify.
		fails string
	}{
		{"signature, release key", []string{"verify", "--key", signing.PublicKeyFile, ref.String()}, ""},
		{"SBOM attestation, release key", []string{"verify-attestation", "--key", signing.PublicKeyFile, "--type", "cyclonedx", ref.String()}, ""},
		{"signature, another key", []string{"verify", "--key", otherKey, ref.String()}, "no matching signatures"},
		{"SPDX attestation, never attached", []string{"verify-attestation", "--key", signing.PublicKeyFile, "--type", "spdxjson", ref.String()}, "none of the attestations matched the predicate type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := cosign(c.args...)
			switch {
			case c.fails == "" && err != nil:
				t.Fatalf("cosign %s: %v\n%s", strings.Join(c.args, " "), err, out)
			case c.fails != "" && err == nil:
				t.Fatalf("cosign %s verified; want it refused with %q\n%s", strings.Join(c.args, " "), c.fails, out)
			case c.fails != "" && !strings.Contains(out, c.fails):
				t.Fatalf("cosign %s refused without %q:\n%s", strings.Join(c.args, " "), c.fails, out)
			}
			if c.fails == "" && c.args[0] == "verify-attestation" && !strings.Contains(attestedStatements(t, out), "pkg:golang/example.com/module@v1.0.0") {
				t.Errorf("the verified attestation does not carry the SBOM:\n%s", out)
			}
		})
	}
}

// attestedStatements decodes the in-toto statements of the DSSE envelopes cosign
// verify-attestation prints, one per line, as the docs' jq pipeline does.
func attestedStatements(t *testing.T, out string) string {
	t.Helper()
	var statements []string
	for line := range strings.Lines(out) {
		var envelope struct {
			Payload []byte `json:"payload"`
		}
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &envelope) != nil {
			continue
		}
		statements = append(statements, string(envelope.Payload))
	}
	return strings.Join(statements, "\n")
}
