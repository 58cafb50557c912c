// Package tcpproxy is a TCP proxy for tests that cuts a client off from
// a server on demand, such as a Redis in the middle of a crawl, while the
// server itself goes on serving the test's other clients.
package tcpproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Proxy forwards the connections it accepts to its target. Its methods
// are safe to call from any goroutine.
type Proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup // the accept loop and the copies

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{} // open connections, both sides

	delay atomic.Int64 // how long each read from the target waits before it is forwarded (Slow)
}

// Slow makes every reply from the target wait d before it is forwarded,
// as from a server that is overloaded or far away; zero ends it.
func (p *Proxy) Slow(d time.Duration) { p.delay.Store(int64(d)) }

// New starts a proxy to target on a free port of 127.0.0.1. It is closed,
// with every connection through it, when t ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tcpproxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.wg.Wait()
	})
	return p
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection through the proxy, and closes each new one
// as soon as it is accepted, until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore lets new connections through again. Those that Cut closed stay
// closed.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// track adds c to the open connections, or closes it if the proxy is cut.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
	c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed by the cleanup
		}
		if !p.track(c) {
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// forward dials the target for client and copies both ways until either
// side closes, then closes both.
func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	// A Cut during the dial has already closed client; track closes server.
	if !p.track(server) {
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(server, client)
	go func() { // the replies, slowed while Slow says so
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if d := time.Duration(p.delay.Load()); d > 0 && n > 0 {
				time.Sleep(d)
			}
			if n > 0 {
				if _, werr := client.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	<-done
	// One side ended: close both, which ends the other copy.
	p.untrack(client)
	p.untrack(server)
	<-done
}

// Server is a plain TCP server for tests, the other end of a proxy: it
// listens on a free port of 127.0.0.1 and runs handle on each connection
// it accepts, until t ends, when it closes the listener and every
// connection and waits for the handlers. It returns its address.
func Server(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tcpproxy: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
