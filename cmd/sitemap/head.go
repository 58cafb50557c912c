package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// A HEAD is sent on a connection of its own, never kept and never reused,
// and every byte the server sends on it is counted: a server that sends a
// body after a HEAD's header would otherwise leave that body on a kept-alive
// connection, where the next GET reads it as its response (Go's transport
// logs it as an "Unsolicited response" and fails the next file with
// "malformed HTTP status code").

// headWait bounds how long bytes after a HEAD's header are waited for.
const headWait = 500 * time.Millisecond

// maxHeader is how much of the start of a HEAD's connection is kept to find
// where the header ends.
const maxHeader = 64 << 10

// headResult is what a HEAD found.
type headResult struct {
	resp      *http.Response
	bodyBytes int64 // bytes the server sent after the header; -1 when unknown
}

// headOnce sends one HEAD for loc through a transport of its own, cloned
// from base when it is an *http.Transport (so its proxy and TLS settings
// hold), that opens one HTTP/1.1 connection and closes it after. When base
// is another RoundTripper the HEAD goes through it with Connection: close,
// and the body is not measured.
func headOnce(ctx context.Context, base http.RoundTripper, loc string) (headResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, loc, nil)
	if err != nil {
		return headResult{}, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	req.Close = true
	if base == nil {
		base = http.DefaultTransport
	}
	bt, ok := base.(*http.Transport)
	if !ok {
		resp, err := base.RoundTrip(req)
		if err != nil {
			return headResult{}, err
		}
		resp.Body.Close()
		return headResult{resp: resp, bodyBytes: -1}, nil
	}
	rec := &recorder{}
	t := bt.Clone()
	t.DisableKeepAlives = true
	t.ForceAttemptHTTP2 = false
	t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1 only
	dial := bt.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		return rec.wrap(c, err)
	}
	if bt.DialTLSContext != nil {
		t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := bt.DialTLSContext(ctx, network, addr)
			return rec.wrap(c, err)
		}
	} else {
		t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			raw, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cfg := &tls.Config{}
			if bt.TLSClientConfig != nil {
				cfg = bt.TLSClientConfig.Clone()
			}
			if cfg.ServerName == "" {
				cfg.ServerName, _, _ = net.SplitHostPort(addr)
			}
			cfg.NextProtos = []string{"http/1.1"}
			tc := tls.Client(raw, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			return rec.wrap(tc, nil)
		}
	}
	defer t.CloseIdleConnections()
	defer rec.closeAll()
	resp, err := t.RoundTrip(req)
	if err != nil {
		return headResult{}, err
	}
	resp.Body.Close()
	return headResult{resp: resp, bodyBytes: rec.after(ctx)}, nil
}

// recorder keeps the connections one HEAD's transport dials, each counting
// what is read from it. Their Close is put off until closeAll, so that the
// bytes after the header can still be read once the transport is done.
type recorder struct {
	mu    sync.Mutex
	conns []*countConn
}

func (r *recorder) wrap(c net.Conn, err error) (net.Conn, error) {
	if err != nil {
		return nil, err
	}
	cc := &countConn{Conn: c, closed: make(chan struct{})}
	r.mu.Lock()
	r.conns = append(r.conns, cc)
	r.mu.Unlock()
	return cc, nil
}

// after waits for the transport to let go of the connection the response
// came on, reads what else the server sends (up to headWait), and returns
// the bytes that followed the header, or -1 when that is unknown.
func (r *recorder) after(ctx context.Context) int64 {
	r.mu.Lock()
	conns := r.conns
	r.mu.Unlock()
	if len(conns) != 1 {
		return -1
	}
	c := conns[0]
	select {
	case <-c.closed:
	case <-time.After(headWait):
		return -1
	case <-ctx.Done():
		return -1
	}
	deadline := time.Now().Add(headWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.Conn.SetReadDeadline(deadline)
	io.Copy(io.Discard, io.LimitReader(readerFunc(c.Read), 1<<20)) // counted by Read
	c.mu.Lock()
	defer c.mu.Unlock()
	end := bytes.Index(c.head, []byte("\r\n\r\n"))
	if end < 0 {
		return -1
	}
	return c.n - int64(end+4)
}

func (r *recorder) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Conn.Close()
	}
}

// countConn counts the bytes read from a connection and keeps the first
// maxHeader of them. Its Close only tells that the transport is done.
type countConn struct {
	net.Conn
	mu     sync.Mutex
	head   []byte
	n      int64
	once   sync.Once
	closed chan struct{}
}

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if room := maxHeader - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	c.n += int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *countConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
