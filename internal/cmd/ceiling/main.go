// Command ceiling is the reference of scripts/ceiling.sh: a trivial
// net/http server that answers with responses captured from another
// server (the demo), the same status, headers and bytes, each written
// from memory with one w.Write. What it serves per second is the
// ceiling of this machine for those responses.
//
//	ceiling -from http://127.0.0.1:18080 -addr 127.0.0.1:18081 -targets targets.txt
//
// -read-header-timeout gives its http.Server the ReadHeaderTimeout the demo's
// has (10 s; 0 for none): with one, net/http sets a read deadline on the
// connection for each request, which costs a timer and often a wake-up of
// the network poller, whatever the handler.
//
// It waits for -from to answer, picks the largest sitemap file the index
// names, fetches each target once, writes the targets to -targets (one
// a line: name, path, Accept-Encoding or "-", If-None-Match or "-"), and
// serves until killed. A request gets the capture of its path and of
// whether its Accept-Encoding and If-None-Match are set.
package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

type target struct {
	name, path, ae, inm string
}

type capture struct {
	status int
	header http.Header
	body   []byte
}

var client = &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Minute}

func main() {
	from := flag.String("from", "http://127.0.0.1:18080", "the server whose responses are captured")
	addr := flag.String("addr", "127.0.0.1:18081", "address to serve the captures on")
	out := flag.String("targets", "targets.txt", "file to write the targets to")
	rht := flag.Duration("read-header-timeout", 10*time.Second, "the server's ReadHeaderTimeout, as the demo's; 0 for none")
	flag.Parse()
	if err := run(*from, *addr, *out, *rht); err != nil {
		log.Fatal(err)
	}
}

func run(from, addr, out string, readHeaderTimeout time.Duration) error {
	if err := waitFor(from+"/robots.txt", 15*time.Minute); err != nil {
		return err
	}
	page, err := largestFile(from)
	if err != nil {
		return err
	}
	plain := strings.TrimSuffix(page, ".gz")
	targets := []target{
		{"cached .xml.gz", page, "-", "-"},
		{"plain .xml", plain, "-", "-"},
		{"index (gzip)", "/sitemap_index.xml", "gzip", "-"},
		{"index (plain)", "/sitemap_index.xml", "-", "-"},
		{"robots.txt", "/robots.txt", "-", "-"},
	}
	// The same file's HTML view, part 1, once it shows the self-audit's
	// notes (the audit runs after the file's build): as a browser asks for
	// it, and plain.
	html := strings.TrimSuffix(page, ".xml.gz") + ".html"
	if err := waitForNotes(from + html); err != nil {
		return err
	}
	targets = append(targets, target{"html part (gzip)", html, "gzip", "-"}, target{"html part (plain)", html, "-", "-"})
	caps := map[string]*capture{}
	for _, t := range targets {
		c, err := fetch(from, t)
		if err != nil {
			return err
		}
		caps[key(t.path, t.ae != "-", t.inm != "-")] = c
		if t.path == page { // a 304 of the same file, by its ETag
			n := target{"304", page, "-", c.header.Get("Etag")}
			c304, err := fetch(from, n)
			if err != nil {
				return err
			}
			if c304.status != http.StatusNotModified {
				return fmt.Errorf("%s with If-None-Match: status %d", page, c304.status)
			}
			caps[key(n.path, false, true)] = c304
			targets = append(targets, n)
		}
	}
	var list bytes.Buffer
	for _, t := range targets {
		fmt.Fprintf(&list, "%s\t%s\t%s\t%s\n", strings.ReplaceAll(t.name, " ", "_"), t.path, t.ae, t.inm)
	}
	if err := os.WriteFile(out, list.Bytes(), 0o644); err != nil {
		return err
	}
	srv := &http.Server{Addr: addr, ReadHeaderTimeout: readHeaderTimeout}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := caps[key(r.URL.Path, r.Header.Get("Accept-Encoding") != "", r.Header.Get("If-None-Match") != "")]
		if c == nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		for k, v := range c.header {
			h[k] = v
		}
		w.WriteHeader(c.status)
		w.Write(c.body)
	})
	return srv.ListenAndServe()
}

func key(path string, ae, inm bool) string {
	return fmt.Sprint(path, ae, inm)
}

// waitFor polls u until it answers, as the demo builds its catalogue on
// first run.
func waitFor(u string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		res, err := client.Get(u)
		if err == nil {
			res.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitForNotes polls u, an HTML view, until it shows live notes, for a
// minute at most (a view with no notes is measured then).
func waitForNotes(u string) error {
	for range 120 {
		res, err := client.Get(u)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: status %d, %v", u, res.StatusCode, err)
		}
		if bytes.Contains(body, []byte(`<ul class="notes">`)) {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	log.Printf("%s shows no notes after a minute", u)
	return nil
}

// largestFile returns the path of the largest .xml.gz file the index
// names (fetching each, which also warms the server's cache).
func largestFile(from string) (string, error) {
	c, err := fetch(from, target{path: "/sitemap_index.xml", ae: "-", inm: "-"})
	if err != nil {
		return "", err
	}
	var idx struct {
		Locs []string `xml:"sitemap>loc"`
	}
	if err := xml.Unmarshal(c.body, &idx); err != nil {
		return "", err
	}
	best, size := "", 0
	for _, loc := range idx.Locs {
		u, err := url.Parse(loc)
		if err != nil || !strings.HasSuffix(u.Path, ".xml.gz") {
			continue
		}
		c, err := fetch(from, target{path: u.Path, ae: "-", inm: "-"})
		if err != nil {
			return "", err
		}
		if len(c.body) > size {
			best, size = u.Path, len(c.body)
		}
	}
	if best == "" {
		return "", errors.New("the index names no .xml.gz file")
	}
	return best, nil
}

func fetch(from string, t target) (*capture, error) {
	req, err := http.NewRequest(http.MethodGet, from+t.path, nil)
	if err != nil {
		return nil, err
	}
	if t.ae != "-" {
		req.Header.Set("Accept-Encoding", t.ae)
	}
	if t.inm != "-" {
		req.Header.Set("If-None-Match", t.inm)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotModified {
		return nil, fmt.Errorf("%s: status %d", t.path, res.StatusCode)
	}
	h := res.Header.Clone()
	delete(h, "Date") // net/http sets its own
	return &capture{status: res.StatusCode, header: h, body: body}, nil
}
