package controlplane

import (
	"fmt"
	"net"
	"sync"
)

// handedOut are the ports freePorts returned before, in this process. A port is picked
// long before its process binds it (the function's at the start, Cluster API's managers
// later, the function after them), so the kernel may offer it again meanwhile: never
// hand out one port twice.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePorts returns n distinct loopback ports that were free a moment ago and that no
// earlier call returned. All listeners are held until every port is picked so that the
// kernel does not hand out the same port twice; a race with other programs in between
// remains possible but is rare with ephemeral ports.
func freePorts(n int) ([]int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("picking %d free ports: the kernel keeps offering ports handed out before", n)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("picking a free port: %w", err)
		}
		ls = append(ls, l) // held, also when skipped, so that the kernel offers another
		p := l.Addr().(*net.TCPAddr).Port
		if handedOut.ports[p] {
			continue
		}
		handedOut.ports[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}
