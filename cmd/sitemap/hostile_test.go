package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// peaks samples the goroutines and the heap while a run goes on.
type peaks struct {
	stop       chan struct{}
	done       sync.WaitGroup
	goroutines int
	heap       uint64
}

func watch() *peaks {
	p := &peaks{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			p.goroutines = max(p.goroutines, runtime.NumGoroutine())
			p.heap = max(p.heap, ms.HeapInuse)
			select {
			case <-p.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return p
}

func (p *peaks) end() { close(p.stop); p.done.Wait() }

// peakRSS is the process's peak resident set (VmHWM), or 0 where /proc
// does not tell it.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestHostileRobots: a robots.txt of 10,000,000 Sitemap: lines, streamed
// by a local server, is read to its first 500 KiB, as crawlers read it,
// and the files those lines name are fetched by a fixed pool: goroutines
// and memory stay bounded (the crawler used to start a goroutine a line,
// and read up to 50 MB of lines: 2.65 GB after 5 minutes), and -deadline
// ends the run.
func TestHostileRobots(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 10,000,000 lines")
	}
	const lines = 10_000_000
	var written atomic.Int64
	var files atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			files.Add(1)
			http.NotFound(w, r)
			return
		}
		bw := bufio.NewWriterSize(w, 64<<10)
		for i := range lines {
			n, err := fmt.Fprintf(bw, "Sitemap: http://%s/s%d.xml\n", r.Host, i)
			written.Add(int64(n))
			if err != nil {
				return // the client hung up
			}
		}
		bw.Flush()
	}))
	defer srv.Close()

	p := watch()
	start := time.Now()
	var out bytes.Buffer
	code := run([]string{"check", "-deadline", "4s", srv.URL + "/robots.txt"}, &out, io.Discard, srv.Client().Transport)
	took := time.Since(start)
	p.end()
	rss := peakRSS()
	t.Logf("%v; %d files fetched; %d bytes written of about %d; peak %d goroutines, %d MiB heap in use, %d MiB RSS (the test process)",
		took, files.Load(), written.Load(), int64(lines)*45, p.goroutines, p.heap>>20, rss>>20)
	if code != 1 || !strings.Contains(out.String(), "robots.txt is over 500 KiB") {
		t.Errorf("exit %d; want 1 with the robots.txt size finding:\n%.2000s", code, out.String())
	}
	whole, size := 0, 0 // the lines that end within 500 KiB
	for ; ; whole++ {
		size += len(fmt.Sprintf("Sitemap: http://%s/s%d.xml\n", strings.TrimPrefix(srv.URL, "http://"), whole))
		if size > 500<<10 {
			break
		}
	}
	deadline := strings.Contains(out.String(), ": deadline: ")
	if n := int(files.Load()); n > whole || !deadline && n != whole {
		t.Errorf("%d files fetched, want the %d whole lines within 500 KiB (a line cut short is not read)", n, whole)
	}
	if p.goroutines > 200 {
		t.Errorf("peak %d goroutines; want a bounded pool", p.goroutines)
	}
	if p.heap > 250<<20 || rss > 250<<20 {
		t.Errorf("peak heap %d MiB, RSS %d MiB; want under 250 MB", p.heap>>20, rss>>20)
	}
	if took > 30*time.Second {
		t.Errorf("took %v with -deadline 4s", took)
	}
	if written.Load() > 100<<20 {
		t.Errorf("%d bytes of robots.txt sent before the client hung up; it reads 500 KiB", written.Load())
	}
}

// TestDeadline: an index of slow files ends at -deadline, with a deadline
// finding that says how many files were left; before it, a slow index
// ran for as long as its files took (an index of 50,000 slow files: about
// 19 hours).
func TestDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/index.xml" {
				w.Header().Set("Content-Type", "application/xml")
				var b strings.Builder
				b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := range 50 {
					fmt.Fprintf(&b, "<sitemap><loc>%s/s%d.xml</loc></sitemap>", base, i)
				}
				io.WriteString(w, b.String()+"</sitemapindex>")
				return
			}
			select { // a file that never comes
			case <-r.Context().Done():
			case <-release:
			}
		})
	})
	start := time.Now()
	var out bytes.Buffer
	code := run([]string{"check", "-deadline", "1s", "-timeout", "1h", srv.URL + "/index.xml"}, &out, io.Discard, srv.Client().Transport)
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v with -deadline 1s", took)
	}
	if code != 1 || !strings.Contains(out.String(), ": deadline: the run reached its deadline (-deadline 1s): 4") {
		t.Errorf("exit %d; want 1 with a deadline finding naming the 46 files left:\n%s", code, out.String())
	}
}

// TestMaxFiles: past -max-files, the names an index lists are not
// followed, and a deadline finding says how many.
func TestMaxFiles(t *testing.T) {
	var files atomic.Int64
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			if r.URL.Path == "/index.xml" {
				var b strings.Builder
				b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := range 30 {
					fmt.Fprintf(&b, "<sitemap><loc>%s/s%d.xml</loc></sitemap>", base, i)
				}
				io.WriteString(w, b.String()+"</sitemapindex>")
				return
			}
			if r.Method == http.MethodGet && r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Modified-Since") == "" && !strings.Contains(r.URL.Path, "999999999") && !strings.Contains(r.URL.Path, "no-such") {
				files.Add(1)
			}
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/p%s</loc></url></urlset>`, base, r.URL.Path)
		})
	})
	var out bytes.Buffer
	run([]string{"check", "-max-files", "10", srv.URL + "/index.xml"}, &out, io.Discard, srv.Client().Transport)
	if n := files.Load(); n != 9 || !strings.Contains(out.String(), "21 more files were listed past -max-files 10") {
		t.Errorf("%d files fetched; want 9 (and the index) with a finding of the 21 left:\n%s", n, out.String())
	}
}

// TestIndexSelfRemote: an index that lists itself is reported, and
// fetched once.
func TestIndexSelfRemote(t *testing.T) {
	var gets atomic.Int64
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/index.xml" {
				http.NotFound(w, r)
				return
			}
			if r.Method == http.MethodGet && r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Modified-Since") == "" {
				gets.Add(1)
			}
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/index.xml</loc></sitemap></sitemapindex>`, base)
		})
	})
	var out bytes.Buffer
	code := run([]string{"check", srv.URL + "/index.xml"}, &out, io.Discard, srv.Client().Transport)
	if code != 1 || !strings.Contains(out.String(), ": index-self: the index lists itself") || gets.Load() != 1 {
		t.Errorf("exit %d, %d GETs; want 1, one GET and index-self:\n%s", code, gets.Load(), out.String())
	}
}

// TestInternal: addresses that are not on the public internet.
func TestInternal(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00:ec2::254": true, "100.100.100.200": true, "0.0.0.0": true,
		"::": true, "::ffff:127.0.0.1": true, "::ffff:169.254.169.254": true, "224.0.0.1": true, "0.1.2.3": true,
		"8.8.8.8": false, "93.184.215.14": false, "2606:4700::1111": false, "100.128.0.1": false, "172.32.0.1": false,
	} {
		if got := internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("internal(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestForeignHosts: a sitemap whose URLs name many other hosts makes the
// check ask at most maxForeign robots.txt, and say so; the ones on
// internal addresses are refused at once, not waited for.
func TestForeignHosts(t *testing.T) {
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			var b strings.Builder
			b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range maxForeign + 10 {
				fmt.Fprintf(&b, "<url><loc>http://10.0.%d.%d/p</loc></url>", i/250, i%250+1)
			}
			io.WriteString(w, b.String()+"</urlset>")
		})
	})
	start := time.Now()
	var out bytes.Buffer
	run([]string{"check", "-timeout", "20s", srv.URL + "/s.xml"}, &out, io.Discard, srv.Client().Transport)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v: internal hosts were waited for", took)
	}
	if !strings.Contains(out.String(), "the robots.txt of 10 more hosts that sitemaps name were not asked") {
		t.Errorf("no cross-submission bound finding:\n%.3000s", out.String())
	}
}

// TestHostileIndex: an index of 50,000 files that never answer holds
// -concurrency of them in flight, with a bounded number of goroutines
// (the crawler used to start one a file), until -deadline.
func TestHostileIndex(t *testing.T) {
	const files = 50_000
	release := make(chan struct{})
	defer close(release)
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/index.xml" {
				w.Header().Set("Content-Type", "application/xml")
				var b strings.Builder
				b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := range files {
					fmt.Fprintf(&b, "<sitemap><loc>%s/s%d.xml</loc></sitemap>", base, i)
				}
				io.WriteString(w, b.String()+"</sitemapindex>")
				return
			}
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
	})
	p := watch()
	var out bytes.Buffer
	code := run([]string{"check", "-deadline", "2s", srv.URL + "/index.xml"}, &out, io.Discard, srv.Client().Transport)
	p.end()
	t.Logf("peak %d goroutines, %d MiB heap in use", p.goroutines, p.heap>>20)
	var left int
	if i := strings.Index(out.String(), "(-deadline 2s): "); i >= 0 {
		fmt.Sscanf(out.String()[i+len("(-deadline 2s): "):], "%d", &left)
	}
	if code != 1 || left < files-4 { // at most -concurrency (4) were taken up
		t.Errorf("exit %d, %d files left; want 1 and at least %d left:\n%.2000s", code, left, files-4, out.String())
	}
	if p.goroutines > 200 {
		t.Errorf("peak %d goroutines; want a bounded pool", p.goroutines)
	}
}
