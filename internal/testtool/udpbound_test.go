package testtool

import (
	"net"
	"testing"
)

// A port this test binds is seen bound, and free again once closed.
func TestUDPBound(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	bound, known := UDPBound(port)
	if !known {
		t.Skip("no /proc/net/udp here (not Linux): UDPBound cannot say")
	}
	if !bound {
		t.Errorf("port %d is bound by this test; UDPBound says not", port)
	}
	c.Close()
	if bound, _ := UDPBound(port); bound {
		t.Errorf("port %d is closed; UDPBound says bound", port)
	}
}
