package controlplane

import "testing"

// TestFreePortsNeverRepeat: ports are picked long before they are bound, so a later call
// must not return a port an earlier one did, even though it is still free.
func TestFreePortsNeverRepeat(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		ports, err := freePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}
