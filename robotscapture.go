package sitemap

import (
	"net/http"
	"sync"
)

// Capture modes, chosen by the application's status.
const (
	captureBuffer  = iota // 200: hold the body, up to maxRobotsBytes
	captureDiscard        // 404, 410: drop the body, ours replaces it
	captureDirect         // anything else, or too large: pass through as written
)

// robotsCapture is the ResponseWriter handed to the application. Its
// header map is its own until the response passes through, so that headers
// of a response we replace never reach the client. Flush is a no-op while
// the body is held (it cannot be sent before it is merged) and flushes the
// real writer once the response passes through; Unwrap gives
// http.ResponseController the real writer for deadlines and the like.
type robotsCapture struct {
	w      http.ResponseWriter
	header http.Header
	status int // 0 until the application writes a header or body
	mode   int
	body   []byte
	head   bool       // the client asked HEAD: a body passing through is dropped
	reader bodyReader // the merged body being served
}

// robotsCaptures holds captures between requests, with their header maps
// and body buffers: a robots.txt request then allocates none of them.
var robotsCaptures = sync.Pool{New: func() any { return &robotsCapture{header: make(http.Header)} }}

// maxPooledRobots bounds the body buffer a capture keeps for the next
// request: the usual robots.txt is a few KiB, a rare large one is not held.
const maxPooledRobots = 64 << 10

func newRobotsCapture(w http.ResponseWriter, head bool) *robotsCapture {
	c := robotsCaptures.Get().(*robotsCapture)
	c.w, c.head = w, head
	return c
}

// release returns c to the pool once the response is sent; nothing of it
// (header map, body) is referenced by then: mergeOnce keeps a copy, and
// the header's values, handed on to the real writer, are never written.
func (c *robotsCapture) release() {
	body := c.body[:0]
	if cap(body) > maxPooledRobots {
		body = nil
	}
	clear(c.header)
	*c = robotsCapture{header: c.header, body: body}
	robotsCaptures.Put(c)
}

func (c *robotsCapture) Header() http.Header {
	if c.mode == captureDirect {
		return c.w.Header() // trailers set after the body still reach the client
	}
	return c.header
}

func (c *robotsCapture) WriteHeader(status int) {
	if c.status != 0 || status < 200 {
		return // a repeated call, or an informational response
	}
	c.status = status
	switch status {
	case http.StatusOK:
		c.mode = captureBuffer
	case http.StatusNotFound, http.StatusGone:
		c.mode = captureDiscard
	default:
		c.passThrough()
	}
}

func (c *robotsCapture) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	switch c.mode {
	case captureBuffer:
		if len(c.body)+len(p) <= maxRobotsBytes {
			c.body = append(c.body, p...)
			return len(p), nil
		}
		c.passThrough()
	case captureDiscard:
		return len(p), nil
	}
	if c.head {
		return len(p), nil
	}
	return c.w.Write(p)
}

// WriteString is Write without a copy of s to bytes (io.WriteString).
func (c *robotsCapture) WriteString(s string) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.mode == captureBuffer && len(c.body)+len(s) <= maxRobotsBytes {
		c.body = append(c.body, s...)
		return len(s), nil
	}
	return c.Write([]byte(s))
}

func (c *robotsCapture) Flush() {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.mode == captureDirect {
		_ = http.NewResponseController(c.w).Flush() // not every writer can
	}
}

func (c *robotsCapture) Unwrap() http.ResponseWriter { return c.w }

// passThrough sends the application's header and what body is held, and
// makes the rest of the body go straight to the client.
func (c *robotsCapture) passThrough() {
	if c.mode == captureDirect {
		return
	}
	h := c.w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	c.mode = captureDirect
	c.w.WriteHeader(c.status)
	if len(c.body) > 0 && !c.head {
		c.w.Write(c.body)
	}
	c.body = nil
}
