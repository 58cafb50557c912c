package tcpproxy_test

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/tcpproxy"
)

// echoServer answers each line with the same line, until t ends.
func echoServer(t *testing.T) string {
	return tcpproxy.Server(t, func(c net.Conn) { io.Copy(c, c) })
}

// dial connects to addr, with a deadline on every read and write so that
// a broken proxy fails the test instead of hanging it.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return c, bufio.NewReader(c)
}

// echo sends line through c and reports whether it came back.
func echo(c net.Conn, r *bufio.Reader, line string) bool {
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return false
	}
	got, err := r.ReadString('\n')
	return err == nil && got == line+"\n"
}

// closed reports whether the other side closed c: a read ends with an
// error, not a timeout.
func closed(c net.Conn, r *bufio.Reader) bool {
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := r.ReadByte()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

func TestForwards(t *testing.T) {
	p := tcpproxy.New(t, echoServer(t))
	a, ra := dial(t, p.Addr())
	b, rb := dial(t, p.Addr())
	for i, line := range []string{"one", "two", "three"} {
		if !echo(a, ra, line) || !echo(b, rb, line+" b") {
			t.Fatalf("line %d did not come back through the proxy", i)
		}
	}
}

func TestCutAndRestore(t *testing.T) {
	p := tcpproxy.New(t, echoServer(t))
	before, rb := dial(t, p.Addr())
	if !echo(before, rb, "hello") {
		t.Fatal("no echo before Cut")
	}

	p.Cut()
	if !closed(before, rb) {
		t.Error("Cut did not close an open connection")
	}
	during, rd := dial(t, p.Addr()) // accepted, then closed at once
	io.WriteString(during, "lost\n")
	if !closed(during, rd) {
		t.Error("a connection made during Cut was not closed")
	}

	p.Restore()
	after, ra := dial(t, p.Addr())
	if !echo(after, ra, "back") {
		t.Error("no echo after Restore")
	}
}

// TestCleanup checks that the proxy stops listening, and closes its
// connections, when its test ends.
func TestCleanup(t *testing.T) {
	target := echoServer(t)
	var addr string
	var c net.Conn
	var r *bufio.Reader
	t.Run("inner", func(t *testing.T) {
		p := tcpproxy.New(t, target)
		addr = p.Addr()
		var err error
		if c, err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		r = bufio.NewReader(c)
		if !echo(c, r, "hi") {
			t.Fatal("no echo")
		}
	})
	if c == nil {
		return // inner failed
	}
	defer c.Close()
	if !closed(c, r) {
		t.Error("a connection outlived the proxy's test")
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the proxy still listens after its test")
	}
}
