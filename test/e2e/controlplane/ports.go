package controlplane

import (
	"fmt"
	"net"
)

// freePorts returns n distinct loopback ports that were free a moment ago.
// All listeners are held until every port is picked so that the kernel does
// not hand out the same port twice; a race with other programs in between
// remains possible but is rare with ephemeral ports.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("picking a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
