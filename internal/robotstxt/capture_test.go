package robotstxt

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCapture: by the application's status, a Capture holds a 200's body
// (up to MaxBytes, past which it passes through what it held and the
// rest), drops a 404's and a 410's, and passes anything else through at
// once, dropping the body for HEAD; informational statuses are ignored;
// the header the application sets reaches the client only when the
// response passes through; Clear leaves nothing of one response to the
// next.
func TestCapture(t *testing.T) {
	var c Capture
	for _, tc := range []struct {
		name    string
		head    bool
		status  int
		writes  []string
		mode    Mode
		sent    string // the body the client got
		held    string
		code    int // the client's status; 200 if nothing was sent
		appHdrs bool
	}{
		{"200 held", false, 0, []string{"User-agent: *\n", "Disallow: /a\n"}, Buffer, "", "User-agent: *\nDisallow: /a\n", 200, false},
		{"404 dropped", false, 404, []string{"not found"}, Discard, "", "", 200, false},
		{"410 dropped", false, 410, []string{"gone"}, Discard, "", "", 200, false},
		{"503 passed", false, 503, []string{"busy"}, Direct, "busy", "", 503, true},
		{"301 passed, HEAD", true, 301, []string{"moved"}, Direct, "", "", 301, true},
		{"1xx ignored", false, 103, []string{"User-agent: *\n"}, Buffer, "", "User-agent: *\n", 200, false},
		{"past the limit", false, 200, []string{strings.Repeat("#\n", MaxBytes/2), "Disallow: /\n"}, Direct, strings.Repeat("#\n", MaxBytes/2) + "Disallow: /\n", "", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c.Reset(rec, tc.head)
			c.Header().Set("X-App", "1")
			if tc.status != 0 {
				c.WriteHeader(tc.status)
			}
			for _, w := range tc.writes {
				if n, err := io.WriteString(&c, w); n != len(w) || err != nil {
					t.Fatalf("write: %d, %v", n, err)
				}
			}
			header, held := c.Held()
			if c.Mode() != tc.mode || string(held) != tc.held && tc.mode == Buffer {
				t.Errorf("mode %d, held %q; want %d, %q", c.Mode(), held, tc.mode, tc.held)
			}
			if rec.Body.String() != tc.sent || rec.Code != tc.code || (rec.Header().Get("X-App") != "") != tc.appHdrs {
				t.Errorf("the client got %d, %v, %d bytes; want %d, %d bytes, the application's header %v", rec.Code, rec.Header(), rec.Body.Len(), tc.code, len(tc.sent), tc.appHdrs)
			}
			if tc.mode == Buffer && header.Get("X-App") != "1" {
				t.Errorf("held header %v", header)
			}
			c.Clear()
			if h, b := c.Held(); len(h) != 0 || len(b) != 0 || c.Mode() != Buffer {
				t.Errorf("after Clear: %v, %d bytes, mode %d", h, len(b), c.Mode())
			}
		})
	}
}

// TestCaptureFlush: Flush holds the body while it is held, and flushes
// the real writer once the response passes through; Unwrap gives the
// real writer.
func TestCaptureFlush(t *testing.T) {
	var c Capture
	rec := httptest.NewRecorder()
	c.Reset(rec, false)
	io.WriteString(&c, "User-agent: *\n")
	if err := http.NewResponseController(&c).Flush(); err != nil || rec.Flushed {
		t.Errorf("held: flush %v, flushed %v", err, rec.Flushed)
	}
	c.PassThrough()
	c.Flush()
	if !rec.Flushed || rec.Body.String() != "User-agent: *\n" || c.Unwrap() != rec {
		t.Errorf("passed through: flushed %v, body %q", rec.Flushed, rec.Body.String())
	}
	c.Clear()
}

// TestDecode: identity and gzip bodies are read, a gzip one past MaxBytes
// once decoded, a broken one, and another coding are not.
func TestDecode(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		io.WriteString(zw, s)
		zw.Close()
		return b.Bytes()
	}
	for _, tc := range []struct {
		enc       string
		body      []byte
		want      string
		gunzipped bool
		ok        bool
	}{
		{"", []byte("a"), "a", false, true},
		{" Identity ", []byte("a"), "a", false, true},
		{"gzip", gz("User-agent: *\n"), "User-agent: *\n", true, true},
		{"X-Gzip", gz("b"), "b", true, true},
		{"gzip", gz(strings.Repeat("x", MaxBytes+1)), "", false, false},
		{"gzip", []byte("not gzip"), "", false, false},
		{"br", []byte("a"), "", false, false},
	} {
		out, gunzipped, ok := Decode(tc.enc, tc.body)
		if string(out) != tc.want || gunzipped != tc.gunzipped || ok != tc.ok {
			t.Errorf("%q: %d bytes, %v, %v; want %q, %v, %v", tc.enc, len(out), gunzipped, ok, tc.want, tc.gunzipped, tc.ok)
		}
	}
	for ct, want := range map[string]bool{"text/html": true, "text/html; charset=utf-8": true, "TEXT/HTML": true, "text/plain": false, "text/plain; charset=utf-8": false, "": false, "bad;;": false} {
		if IsHTML(ct) != want {
			t.Errorf("IsHTML(%q) = %v", ct, !want)
		}
	}
}
