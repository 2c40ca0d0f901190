package fakegarden

import (
	"context"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// In-memory implementations of the Handler's dependencies, for tests.

// Tokens authenticates bearer tokens from a fixed table.
type Tokens map[string]*User

// Authenticate implements Authenticator.
func (t Tokens) Authenticate(r *http.Request) (*User, bool, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	u, ok := t[token]
	return u, ok, nil
}

// AllowUsers authorizes the named users for every Shoot.
type AllowUsers []string

// Authorize implements Authorizer.
func (a AllowUsers) Authorize(_ context.Context, u *User, _, _ string) (bool, string, error) {
	for _, name := range a {
		if u.Name == name {
			return true, "", nil
		}
	}
	return false, "", nil
}

// ShootMap holds Shoots by namespace/name. It is safe for concurrent use, so a test can add
// and remove Shoots while a server runs.
type ShootMap struct {
	mu     sync.Mutex
	shoots map[string]*Shoot
}

// Put adds or replaces a Shoot.
func (m *ShootMap) Put(namespace, name string, s *Shoot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shoots == nil {
		m.shoots = map[string]*Shoot{}
	}
	m.shoots[namespace+"/"+name] = s
}

// Delete removes a Shoot.
func (m *ShootMap) Delete(namespace, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.shoots, namespace+"/"+name)
}

// Get implements Shoots.
func (m *ShootMap) Get(_ context.Context, namespace, name string) (*Shoot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.shoots[namespace+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(shootsResource, name)
	}
	return s, nil
}
