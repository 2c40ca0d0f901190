package controlplane

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/runtime"
	"github.com/go-openapi/strfmt"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	"github.com/transparency-dev/merkle/rfc6962"

	// The entry kinds cosign logs: hashedrekord for a signature, dsse for an attestation.
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1"
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1"
)

// transparencyLog stands in for Rekor, sigstore's transparency log, when cosign signs with
// --tlog-upload: Crossplane refuses a key-signed package whose signature carries no signed
// entry timestamp (SET) of a log it trusts, and Rekor itself needs Trillian and a database.
// It answers the one call cosign makes, POST /api/v1/log/entries, as Rekor does: the entry
// checked and canonicalised by Rekor's own types, and a SET signed with the log's key over
// the canonical JSON of body, integratedTime, logID and logIndex. It keeps no Merkle tree:
// cosign's legacy bundle verification, the path Crossplane v2.4.0 takes, checks the SET and
// never an inclusion proof (docs/design/offline-signature-verification.md). Any other
// request gets 404, so that a cosign that asks for more shows in the test.
type transparencyLog struct {
	key   *ecdsa.PrivateKey
	logID string // hex SHA-256 of the public key's PKIX DER, as Rekor names its logs

	mu    sync.Mutex
	index int64
}

func newTransparencyLog(key *ecdsa.PrivateKey) (*transparencyLog, error) {
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256(der)
	return &transparencyLog{key: key, logID: hex.EncodeToString(id[:])}, nil
}

func (l *transparencyLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		http.NotFound(w, r)
		return
	}
	entry, uuid, err := l.logEntry(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, err := json.Marshal(models.LogEntry{uuid: entry})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated) // cosign takes anything else for a failure
	_, _ = w.Write(body)
}

// logEntry admits the proposed entry of r as Rekor's createLogEntry does and returns the
// entry with its SET, and its UUID (the RFC 6962 leaf hash of the canonical body).
func (l *transparencyLog) logEntry(r *http.Request) (models.LogEntryAnon, string, error) {
	proposed, err := models.UnmarshalProposedEntry(r.Body, runtime.JSONConsumer())
	if err != nil {
		return models.LogEntryAnon{}, "", fmt.Errorf("proposed entry: %w", err)
	}
	// Checks the entry (for hashedrekord: the signature against the key it carries).
	impl, err := types.CreateVersionedEntry(proposed)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	leaf, err := types.CanonicalizeEntry(r.Context(), impl)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	l.mu.Lock()
	index := l.index
	l.index++
	l.mu.Unlock()
	integrated := time.Now().Unix()
	entry := models.LogEntryAnon{Body: leaf, IntegratedTime: &integrated, LogID: &l.logID, LogIndex: &index}
	payload, err := entry.MarshalBinary()
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	canonical, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	digest := sha256.Sum256(canonical)
	set, err := ecdsa.SignASN1(rand.Reader, l.key, digest[:])
	if err != nil {
		return models.LogEntryAnon{}, "", err
	}
	entry.Verification = &models.LogEntryAnonVerification{SignedEntryTimestamp: strfmt.Base64(set)}
	return entry, hex.EncodeToString(rfc6962.DefaultHasher.HashLeaf(leaf)), nil
}
