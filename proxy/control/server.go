package control

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// The control API's server bounds what its clients hold, so that idle or
// slow connections (a script that never closes, an attack) cannot take
// the file descriptors the relay needs for its clients' sockets:
const (
	// MaxConns is how many connections the API holds at once; one more
	// is answered 503 and closed at once.
	MaxConns = 64
	// ReadHeaderTimeout is how long a request's headers may take,
	// ReadTimeout the whole request (MaxBody at loopback speed takes
	// milliseconds), WriteTimeout the answer, IdleTimeout the wait for
	// the next request on a kept-alive connection.
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 30 * time.Second
)

// Server is the control API served on a listener, within the bounds above.
type Server struct {
	srv *http.Server
	ln  *capListener
}

// Serve serves h on ln (in a goroutine of its own) until Close.
func Serve(ln net.Listener, h http.Handler) *Server {
	s := &Server{ln: &capListener{Listener: ln, max: MaxConns}}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout,
		WriteTimeout: WriteTimeout, IdleTimeout: IdleTimeout, MaxHeaderBytes: 64 << 10}
	go s.srv.Serve(s.ln)
	return s
}

// Open is how many connections the server holds now.
func (s *Server) Open() int { return int(s.ln.open.Load()) }

// Refused is how many connections were refused for want of room.
func (s *Server) Refused() uint64 { return s.ln.refused.Load() }

// Close closes the listener and every connection.
func (s *Server) Close() error { return s.srv.Close() }

// capListener hands out at most max connections at once; one beyond is
// answered 503 and closed.
type capListener struct {
	net.Listener
	max     int64
	open    atomic.Int64
	refused atomic.Uint64
}

// ErrBusy is the error a connection beyond MaxConns is answered with.
var ErrBusy = fmt.Errorf("the control API holds %d connections, its most: close idle ones (keep-alive) and retry", MaxConns)

// busy is the whole answer to a connection beyond MaxConns.
var busy = func() []byte {
	body, _ := json.Marshal(map[string]string{"error": ErrBusy.Error()})
	return fmt.Appendf(nil, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}()

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.refused.Add(1)
			c.SetWriteDeadline(time.Now().Add(time.Second)) // a few bytes into a new socket's buffer: never waits
			c.Write(busy)
			c.Close()
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// countedConn gives its place back when closed (once).
type countedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
