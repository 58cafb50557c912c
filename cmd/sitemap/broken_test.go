package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/freshmap/sitemap"
)

// rawServer is an HTTP/1.1 server written on a bare listener, so that it can
// do what net/http's server never does: send a body after a HEAD, on a
// connection it keeps alive. files maps a path to its body; the
// Content-Type is application/gzip for a gzip body, else application/xml.
func rawServer(t *testing.T, files func(base string) map[string][]byte) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	base := "http://" + ln.Addr().String()
	fs := files(base)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					body, ok := fs[req.URL.Path]
					status, ct := "200 OK", "application/xml"
					switch {
					case !ok:
						status, ct, body = "404 Not Found", "text/plain", []byte("not found\n")
					case bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
						ct = "application/gzip"
					case strings.HasSuffix(req.URL.Path, ".txt"):
						ct = "text/plain"
					}
					// The bug: the body follows a HEAD's header too.
					fmt.Fprintf(conn, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", status, ct, len(body))
					conn.Write(body)
				}
			}()
		}
	}()
	return base
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

// printable reports the first byte sequence of s that a terminal would
// not show as text, if any.
func printable(s string) (string, bool) {
	for i, r := range s {
		if r == utf8.RuneError || r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return fmt.Sprintf("%q at %d", s[i:min(i+16, len(s))], i), false
		}
	}
	return "", true
}

// TestHeadWithBody: a server that sends a body after HEAD on a kept-alive
// connection. Each file gets an http-head finding, every file is fetched
// and checked fully (each has one bad priority), no fetch fails, and no
// raw bytes reach stdout, stderr or the log.
func TestHeadWithBody(t *testing.T) {
	base := rawServer(t, func(base string) map[string][]byte {
		fs := map[string][]byte{"/robots.txt": []byte("User-agent: *\nSitemap: " + base + "/index.xml\n")}
		var idx strings.Builder
		idx.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range 6 {
			fmt.Fprintf(&idx, "<sitemap><loc>%s/s%d.xml.gz</loc></sitemap>", base, i)
			var doc strings.Builder
			doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
			fmt.Fprintf(&doc, "<url><loc>%s/p/%d</loc><priority>2</priority></url>\n", base, i)
			for j := range 2000 { // enough gzip to fill several packets
				fmt.Fprintf(&doc, "<url><loc>%s/p/%d/%d</loc><lastmod>2025-01-%02dT00:00:%02dZ</lastmod></url>\n", base, i, j, j%28+1, j%60)
			}
			doc.WriteString("</urlset>\n")
			fs[fmt.Sprintf("/s%d.xml.gz", i)] = gzipped(doc.String())
		}
		idx.WriteString("</sitemapindex>\n")
		fs["/index.xml"] = []byte(idx.String())
		return fs
	})
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(io.Discard)
	var out, errOut bytes.Buffer
	code := run([]string{"check", "-concurrency", "1", base + "/"}, &out, &errOut, http.DefaultTransport.(*http.Transport).Clone())
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	report := out.String()
	if n := strings.Count(report, ": priority-range: "); n != 6 {
		t.Errorf("%d priority-range findings, want 6 (one per file: every file checked)\n%.3000s", n, report)
	}
	if n := strings.Count(report, ": http-head: HEAD answered with a body"); n != 7 {
		t.Errorf("%d http-head findings, want 7 (the index and 6 files)\n%.3000s", n, report)
	}
	if strings.Contains(report, ": fetch: ") || strings.Contains(report, "malformed") {
		t.Errorf("a fetch failed after a HEAD:\n%.3000s", report)
	}
	for name, s := range map[string]string{"stdout": report, "stderr": errOut.String(), "log": logged.String()} {
		if bad, ok := printable(s); !ok {
			t.Errorf("%s holds raw bytes: %s", name, bad)
		}
	}
	if logged.Len() > 0 {
		t.Errorf("the HTTP client logged:\n%.300q", logged.String())
	}
}

// TestUnknownPath500: a server that answers 500 for a sitemap path that
// names no file. The probe reports it; every real file still checks clean.
func TestUnknownPath500(t *testing.T) {
	srv := server(t, func(base string) http.Handler {
		var urls []sitemap.URL
		for i := range 5 {
			urls = append(urls, sitemap.URL{Loc: fmt.Sprintf("%s/p/%d", base, i), LastMod: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		}
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 2)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		h := sm.Handler(http.NotFoundHandler())
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusNotFound && strings.HasPrefix(r.URL.Path, "/sitemap") {
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	})
	var out bytes.Buffer
	code := run([]string{"check", srv.URL + "/"}, &out, io.Discard, srv.Client().Transport)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var rules []string
	for line := range strings.Lines(out.String()) {
		if _, rest, ok := strings.Cut(line, ": error: "); ok {
			rule, _, _ := strings.Cut(rest, ":")
			rules = append(rules, rule)
		}
	}
	if len(rules) == 0 {
		t.Fatalf("no error:\n%s", out.String())
	}
	for _, r := range rules {
		if r != "http-unknown" {
			t.Errorf("error %s, want only http-unknown\n%s", r, out.String())
		}
	}
	if !strings.Contains(out.String(), "4      5     ") {
		t.Errorf("want 4 files and 5 URLs checked:\n%s", out.String())
	}
}
