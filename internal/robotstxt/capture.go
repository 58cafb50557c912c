package robotstxt

import "net/http"

// Mode is what a Capture does with the application's response, chosen by
// its status.
type Mode uint8

const (
	Buffer  Mode = iota // 200: hold the body, up to MaxBytes
	Discard             // 404, 410: drop the body, ours replaces it
	Direct              // anything else, or too large: pass through as written
)

// Capture is the ResponseWriter handed to the application for its
// robots.txt. Its header map is its own until the response passes
// through, so that headers of a response we replace never reach the
// client. Flush is a no-op while the body is held (it cannot be sent
// before it is merged) and flushes the real writer once the response
// passes through; Unwrap gives http.ResponseController the real writer
// for deadlines and the like. A Capture is reused: Reset before each
// response, Clear after it.
type Capture struct {
	w      http.ResponseWriter
	header http.Header
	status int // 0 until the application writes a header or body
	mode   Mode
	body   []byte
	head   bool // the client asked HEAD: a body passing through is dropped
}

// maxKept bounds the body buffer a capture keeps for the next response:
// the usual robots.txt is a few KiB, a rare large one is not held.
const maxKept = 64 << 10

// Reset makes c capture a response for w; head is whether the client
// asked HEAD.
func (c *Capture) Reset(w http.ResponseWriter, head bool) {
	if c.header == nil {
		c.header = make(http.Header)
	}
	c.w, c.head = w, head
}

// Clear readies c for reuse once the response is sent, keeping its header
// map and a small body buffer; nothing of it is referenced by then:
// MergeOnce keeps a copy of the body, and the header's values, handed on
// to the real writer, are never written.
func (c *Capture) Clear() {
	body := c.body[:0]
	if cap(body) > maxKept {
		body = nil
	}
	clear(c.header)
	*c = Capture{header: c.header, body: body}
}

// Mode is what c does with the response, as its status chose.
func (c *Capture) Mode() Mode { return c.mode }

// Held is the header and the body held of a 200 (Mode Buffer); the
// caller must not keep them past Clear.
func (c *Capture) Held() (http.Header, []byte) { return c.header, c.body }

func (c *Capture) Header() http.Header {
	if c.mode == Direct {
		return c.w.Header() // trailers set after the body still reach the client
	}
	return c.header
}

func (c *Capture) WriteHeader(status int) {
	if c.status != 0 || status < 200 {
		return // a repeated call, or an informational response
	}
	c.status = status
	switch status {
	case http.StatusOK:
		c.mode = Buffer
	case http.StatusNotFound, http.StatusGone:
		c.mode = Discard
	default:
		c.PassThrough()
	}
}

func (c *Capture) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	switch c.mode {
	case Buffer:
		if len(c.body)+len(p) <= MaxBytes {
			c.body = append(c.body, p...)
			return len(p), nil
		}
		c.PassThrough()
	case Discard:
		return len(p), nil
	}
	if c.head {
		return len(p), nil
	}
	return c.w.Write(p)
}

// WriteString is Write without a copy of s to bytes (io.WriteString).
func (c *Capture) WriteString(s string) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.mode == Buffer && len(c.body)+len(s) <= MaxBytes {
		c.body = append(c.body, s...)
		return len(s), nil
	}
	return c.Write([]byte(s))
}

func (c *Capture) Flush() {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.mode == Direct {
		_ = http.NewResponseController(c.w).Flush() // not every writer can
	}
}

func (c *Capture) Unwrap() http.ResponseWriter { return c.w }

// PassThrough sends the application's header and what body is held, and
// makes the rest of the body go straight to the client.
func (c *Capture) PassThrough() {
	if c.mode == Direct {
		return
	}
	h := c.w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	c.mode = Direct
	c.w.WriteHeader(c.status)
	if len(c.body) > 0 && !c.head {
		c.w.Write(c.body)
	}
	c.body = nil
}
