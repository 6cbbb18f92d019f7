package testtool

import (
	"fmt"
	"os"
	"strings"
)

// UDPBound says whether some socket on this machine is bound to the UDP
// port, from Linux's /proc/net/udp and udp6, without binding it: a test
// that binds a port to see whether a child process has it yet can take it
// from under the child, whose bind then fails. known is false where /proc
// does not say (not Linux).
func UDPBound(port int) (bound, known bool) {
	suffix := fmt.Sprintf(":%04X ", port)
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		known = true
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) > 1 && strings.HasSuffix(fields[1]+" ", suffix) {
				return true, true
			}
		}
	}
	return false, known
}
