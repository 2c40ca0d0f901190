package model

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// maxZones bounds the number of zones a pool can have far above the XRD's limit, so that
// conversions to the API's int32 sizes cannot overflow.
const maxZones = 1 << 16

// ZoneShare is zone i's part of n nodes spread over zones: the size divided evenly, the
// first zones taking the remainder. Backends that run one node group per zone use it, so a
// pool of 4 over 3 zones is 2, 1, 1 on every backend.
func ZoneShare(n int32, zones, i int) int32 {
	if zones == 0 {
		return n
	}
	z := int32(min(zones, maxZones)) // #nosec G115 -- bounded just here
	s := n / z
	if int32(min(i, maxZones)) < n%z { // #nosec G115 -- bounded just here
		s++
	}
	return s
}

// PoolZoneName names a pool's node group in one zone: <pool>-<zone>, stable for the life of
// the pool and zone. A zone that does not make a DNS label is replaced by a short hash of
// it, so the name is still valid and still stable.
func PoolZoneName(pool, zone string) string {
	if zone == "" {
		return pool
	}
	name := pool + "-" + strings.ToLower(zone)
	if len(validation.IsDNS1123Label(name)) == 0 {
		return name
	}
	sum := sha256.Sum256([]byte(zone))
	return pool + "-z" + hex.EncodeToString(sum[:])[:8]
}
