package model

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// maxZones bounds zones far above the XRD's limit, so that int32 conversions cannot overflow.
const maxZones = 1 << 16

// ZoneShare is zone i's part of n nodes spread over zones, the first taking the remainder,
// so that a pool of 4 over 3 zones is 2, 1, 1 on every backend.
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

// PoolZoneName names a pool's node group in one zone: <pool>-<zone>, or with a short hash of
// a zone that makes no DNS label; stable for the life of the pool and zone.
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
