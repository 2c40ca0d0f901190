// Package auth holds the few Nebius auth names provider-kubernetes compiles
// against; see the parent package for why this is a stub.
package auth

// BearerToken mirrors the SDK's token value.
type BearerToken struct {
	Token string
}

// ServiceAccountReader mirrors the SDK's service account source.
type ServiceAccountReader interface{ serviceAccount() }

type privateKeyParser struct{}

func (privateKeyParser) serviceAccount() {}

// NewPrivateKeyParser mirrors the SDK constructor; the stub keeps nothing.
func NewPrivateKeyParser(_ []byte, _, _ string) ServiceAccountReader { return privateKeyParser{} }
