// Package gosdk is a build-only stand-in for the Nebius SDK: provider-kubernetes
// imports it for Nebius cluster login, which this project never uses. Nebius
// credentials in a ProviderConfig therefore fail with ErrUnavailable.
package gosdk

import (
	"context"
	"errors"

	"github.com/nebius/gosdk/auth"
)

// ErrUnavailable is returned for every attempt to use Nebius authentication.
var ErrUnavailable = errors.New("nebius login is not available: provider-kubernetes was built with a stub of github.com/nebius/gosdk")

// Option configures New; the stub ignores it.
type Option interface{ nebiusOption() }

// Credentials mirrors the SDK's credentials option type.
type Credentials struct{ reader auth.ServiceAccountReader }

func (Credentials) nebiusOption() {}

// WithCredentials mirrors the SDK option of the same name.
func WithCredentials(c Credentials) Option { return c }

// ServiceAccountReader mirrors the SDK constructor of the same name.
func ServiceAccountReader(r auth.ServiceAccountReader) Credentials { return Credentials{reader: r} }

// SDK is never constructed: New always fails.
type SDK struct{}

// New always fails, so no Nebius token is ever minted.
func New(context.Context, ...Option) (*SDK, error) { return nil, ErrUnavailable }

// BearerToken satisfies the provider's token source interface.
func (*SDK) BearerToken(context.Context) (auth.BearerToken, error) {
	return auth.BearerToken{}, ErrUnavailable
}
