package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
)

// get sends one request within the timeout, holding a fetch slot, and
// reads the body (at most sitemap.MaxBytes+1 bytes). Content-Encoding is
// not undone: the checker reads gzip itself, and the bytes are what the
// Content-Type rules judge.
func (c *crawler) get(loc string, hdr http.Header) (*http.Response, []byte, error) {
	return c.do(http.MethodGet, loc, hdr, sitemap.MaxBytes+1)
}

// getLimit is get reading at most limit bytes of the body.
func (c *crawler) getLimit(loc string, hdr http.Header, limit int64) (*http.Response, []byte, error) {
	return c.do(http.MethodGet, loc, hdr, limit)
}

// do sends one request. A request that fails for any other reason than
// its timeout is sent once more after the idle connections are closed, so
// that a connection a broken server left in a bad state fails one attempt,
// not the file.
func (c *crawler) do(method, loc string, hdr http.Header, limit int64) (*http.Response, []byte, error) {
	c.slots <- struct{}{}
	defer func() { <-c.slots }()
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	resp, body, err := c.once(ctx, method, loc, hdr, limit)
	if err != nil && ctx.Err() == nil && !refused(err) {
		c.client.CloseIdleConnections()
		resp, body, err = c.once(ctx, method, loc, hdr, limit)
	}
	return resp, body, err
}

func (c *crawler) once(ctx context.Context, method, loc string, hdr http.Header, limit int64) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, loc, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip") // set by us, so never undone by the transport
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp, body, err
}

// fetch GETs a sitemap file, applies the HTTP rules, and returns its
// bytes, or false when there is nothing to check.
func (c *crawler) fetch(loc string) ([]byte, bool) {
	add := func(rule, format string, args ...any) {
		c.chk.Add(check.NewFinding(rule, loc, fmt.Sprintf(format, args...)))
	}
	resp, body, err := c.get(loc, nil)
	if err != nil {
		add("fetch", "%v", err)
		return nil, false
	}
	if resp.StatusCode != http.StatusOK {
		add("http-status", "GET answered %s", resp.Status)
		return nil, false
	}
	if len(body) > sitemap.MaxBytes {
		add("file-size", "more than %d bytes on the wire", sitemap.MaxBytes)
		return nil, false
	}
	if msg := contentType(resp.Header, body); msg != "" {
		add("http-content-type", "%s", msg)
	}
	etag, modified := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" {
		add("http-etag", "no ETag")
	} else {
		c.conditional(loc, "If-None-Match", etag, add)
	}
	if modified == "" {
		add("http-last-modified", "no Last-Modified")
	} else {
		c.conditional(loc, "If-Modified-Since", modified, add)
	}
	if etag == "" && modified == "" {
		add("http-conditional", "no validator, so no conditional request can be answered 304")
	}
	c.head(loc, add)
	return body, true
}

// conditional sends a GET with one validator and expects 304.
func (c *crawler) conditional(loc, header, value string, add func(string, string, ...any)) {
	resp, _, err := c.get(loc, http.Header{header: {value}})
	if err != nil {
		add("fetch", "conditional GET: %v", err)
	} else if resp.StatusCode != http.StatusNotModified {
		add("http-conditional", "%s: %s answered %s, not 304 Not Modified", header, value, resp.Status)
	}
}

// head sends a HEAD on a connection of its own (head.go) and expects 200
// with no body.
func (c *crawler) head(loc string, add func(string, string, ...any)) {
	c.slots <- struct{}{}
	defer func() { <-c.slots }()
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	h, err := headOnce(ctx, c.transport, loc)
	switch {
	case err != nil:
		add("fetch", "HEAD: %v", err)
	case h.resp.StatusCode != http.StatusOK:
		add("http-head", "HEAD answered %s, GET 200 OK", h.resp.Status)
	case h.bodyBytes > 0:
		add("http-head", "HEAD answered with a body (%d bytes after the header); that connection was closed, not reused", h.bodyBytes)
	}
}

// contentType judges Content-Type and Content-Encoding against the bytes,
// and returns what is wrong, or "". A gzip file (.xml.gz) is served as
// application/gzip with no Content-Encoding; XML as application/xml or
// text/xml, gzip-encoded or not.
func contentType(h http.Header, body []byte) string {
	ct := h.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	gz := bytes.HasPrefix(body, []byte{0x1f, 0x8b})
	switch enc := h.Get("Content-Encoding"); {
	case enc == "gzip" && !gz:
		return "Content-Encoding: gzip, but the body is not gzip"
	case enc == "gzip":
		if !isXML(mt) && mt != "text/plain" {
			return fmt.Sprintf("Content-Type %q for a gzip-encoded XML body; want application/xml", ct)
		}
	case enc != "" && enc != "identity":
		return fmt.Sprintf("Content-Encoding %q: only gzip is read", enc)
	case gz:
		if mt != "application/gzip" && mt != "application/x-gzip" {
			return fmt.Sprintf("Content-Type %q for a gzip file with no Content-Encoding; want application/gzip", ct)
		}
	case isTextBody(body):
		if mt != "text/plain" {
			return fmt.Sprintf("Content-Type %q for a plain-text sitemap; want text/plain", ct)
		}
	case !isXML(mt):
		return fmt.Sprintf("Content-Type %q for an XML body; want application/xml", ct)
	}
	return ""
}

// isTextBody tells a plain-text sitemap (one URL a line) from XML: its
// first bytes, past a byte-order mark and white space, are not '<'.
func isTextBody(body []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(b) > 0 && b[0] != '<'
}

func isXML(mt string) bool {
	switch mt {
	case "application/xml", "text/xml", "application/atom+xml", "application/rss+xml":
		return true // feeds, which robots.txt may name, are XML too
	}
	return false
}
