package control

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// waitOpen polls until the server holds n connections (the test's own
// timeout bounds it; nothing here measures time).
func waitOpen(t *testing.T, s *Server, n int) {
	t.Helper()
	for s.Open() != n {
		time.Sleep(time.Millisecond)
	}
}

func get(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, "GET /counters HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Idle connections cannot pile up (issue 27.7): the server holds at most
// MaxConns; one more is answered 503 at once and closed, so the file
// descriptors the relay needs stay free; a place freed is taken again.
func TestServerHoldsAtMostMaxConns(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newConditions(t)
	defer c.Stop()
	s := Serve(ln, Handler(c, fakeSource{}))
	defer s.Close()
	var idle []net.Conn
	for range MaxConns {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		idle = append(idle, conn)
	}
	waitOpen(t, s, MaxConns)
	extra, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	resp := get(t, extra)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || !strings.Contains(string(body), ErrBusy.Error()) {
		t.Fatalf("connection %d: %d %s; want 503 %q", MaxConns+1, resp.StatusCode, body, ErrBusy)
	}
	if s.Open() != MaxConns || s.Refused() != 1 {
		t.Fatalf("open %d, refused %d; want %d, 1", s.Open(), s.Refused(), MaxConns)
	}
	idle[0].Close()
	waitOpen(t, s, MaxConns-1)
	next, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if resp := get(t, next); resp.StatusCode != 200 {
		t.Fatalf("after a place was freed: %d; want 200", resp.StatusCode)
	}
}

// pipeListener is a listener of in-memory connections (net.Pipe), whose
// deadlines follow synctest's clock.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

// closedBy reads c until the server closes it; an answer is ignored.
func closedBy(c net.Conn) error {
	_, err := io.Copy(io.Discard, c)
	if err == nil {
		return io.EOF
	}
	return err
}

// A connection that sends nothing, sends half a request, or stays open
// idle after an answer is closed by the server after its timeout (issue
// 27.7): a client cannot hold a place for ever. synctest's clock: no
// test waits in real time.
func TestServerClosesSilentAndIdleConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := newConditions(t)
		defer c.Stop()
		ln := newPipeListener()
		s := Serve(ln, Handler(c, fakeSource{}))
		defer s.Close()

		silent := ln.dial()
		half := ln.dial()
		io.WriteString(half, "GET /counters HTTP/1.1\r\nHost: 127.0.0.1\r\n")
		done := make(chan error, 2)
		start := time.Now()
		go func() { done <- closedBy(silent) }()
		go func() { done <- closedBy(half) }()
		for range 2 {
			if err := <-done; !errors.Is(err, io.EOF) {
				t.Fatalf("read %v; want the server to close", err)
			}
		}
		if waited := time.Since(start); waited < ReadHeaderTimeout || waited > ReadHeaderTimeout+time.Second {
			t.Errorf("closed after %v; want ReadHeaderTimeout %v", waited, ReadHeaderTimeout)
		}

		idle := ln.dial()
		r := bufio.NewReader(idle)
		go io.WriteString(idle, "GET /counters HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		start = time.Now()
		if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("idle read %v; want the server to close", err)
		}
		if waited := time.Since(start); waited < IdleTimeout || waited > IdleTimeout+time.Second {
			t.Errorf("idle connection closed after %v; want IdleTimeout %v", waited, IdleTimeout)
		}
		synctest.Wait()
		if s.Open() != 0 {
			t.Errorf("%d connections held; want 0", s.Open())
		}
	})
}
