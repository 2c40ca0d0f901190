package model

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Labels Crossplane puts on the composite resource of a claim.
const (
	LabelClaimNamespace = "crossplane.io/claim-namespace"
	LabelClaimName      = "crossplane.io/claim-name"
)

// LabelIdentity carries, on every native object, a hash of the cluster's Identity, so that
// an object of another cluster whose name collides is never taken over.
const LabelIdentity = "kaas.scs.community/identity"

// Identity is who a cluster is to its users: the namespace and name of its claim or
// namespaced composite, not the composite's generated name, so that a composite created
// again for the same claim (a restore, a migration) is the same cluster.
type Identity struct {
	Namespace, Name string
}

// IdentityOf returns the identity of a composite resource. A namespaced composite is its own
// namespace and name whatever its labels say: its team writes them, and claim labels would
// let it speak for another namespace. Only Crossplane labels cluster-scoped composites.
func IdentityOf(xr *kaasv1alpha1.XSCSCluster) Identity {
	if xr.GetNamespace() != "" {
		return Identity{Namespace: xr.GetNamespace(), Name: xr.GetName()}
	}
	l := xr.GetLabels()
	if ns, n := l[LabelClaimNamespace], l[LabelClaimName]; ns != "" && n != "" {
		return Identity{Namespace: ns, Name: n}
	}
	return Identity{Name: xr.GetName()}
}

func (id Identity) String() string {
	if id.Namespace == "" {
		return id.Name
	}
	return id.Namespace + "/" + id.Name
}

// Hash is a label value that stands for the identity.
func (id Identity) Hash() string {
	sum := sha256.Sum256([]byte(id.String()))
	return hex.EncodeToString(sum[:16])
}

// nameHashLength is the length of the hash in a native name: 30 bits, so that a thousand
// clusters of one readable name collide below 0.05%, and LabelIdentity refuses the rest.
const nameHashLength = 6

// minNativeName is one readable character, a dash and the hash.
const minNativeName = 1 + 1 + nameHashLength

// NativeName derives a cluster's name in a backend from its identity, at most max long: a
// DNS label that starts with a letter and holds no "--" (docs/architecture.md#names).
func NativeName(id Identity, max int) string {
	if max < minNativeName {
		max = minNativeName
	}
	var b strings.Builder
	for _, r := range strings.ToLower(id.Name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	readable := b.String()
	if readable == "" || readable[0] < 'a' || readable[0] > 'z' {
		readable = "c" + readable
	}
	if limit := max - 1 - nameHashLength; len(readable) > limit {
		readable = readable[:limit]
	}
	readable = strings.TrimRight(readable, "-")
	sum := sha256.Sum256([]byte(id.String()))
	hash := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:nameHashLength]
	return readable + "-" + hash
}
