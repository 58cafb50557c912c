// Command sitemap checks sitemaps against the protocol's rules, with no
// xmllint needed, and exports a served tree to a directory.
//
//	sitemap check [-json] [-concurrency N] [-timeout D] [-max-memory MiB] URL|FILE…
//	sitemap export -o DIR [-public URL] [-concurrency N] [-timeout D] URL
//
// A URL may name a site (https://example.com/) or its robots.txt, whose
// Sitemap: lines are followed, or a sitemap or index. An index is followed
// to every file it lists; the HTTP side of each file (status, Content-Type
// against the bytes, ETag, Last-Modified, a conditional request answered
// 304, HEAD) is checked too. A FILE is a local sitemap or index, plain or
// gzip; the files an index lists are checked when a file of the same name
// lies beside it.
//
// Findings are printed as "file:line:col: severity: rule: message", then a
// summary table; -json prints one JSON object instead. The exit status is 1
// if any error was found, and 2 on a usage error.
//
// Export mirrors the tree of a site (or of one index, given its URL) to
// DIR, with the package export: every file as served, each index listing
// its files under -public, each file written atomically, and only files
// whose ETag changed since the last export fetched and written. The exit
// status is 1 if the export failed, and 2 on a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/freshmap/sitemap/check"
)

func main() {
	log.SetOutput(cleanLines{os.Stderr}) // what net/http logs may quote a server's bytes
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, http.DefaultTransport))
}

const usage = "usage: sitemap check [-json] [-concurrency N] [-timeout D] [-max-memory MiB] URL|FILE…\n" +
	"       sitemap export -o DIR [-public URL] [-concurrency N] [-timeout D] URL"

// run is the command, with its outputs and transport given so that tests
// can run it. It returns the exit status.
func run(args []string, stdout, stderr io.Writer, transport http.RoundTripper) int {
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr, transport)
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print one JSON object: findings and counts")
	concurrency := fs.Int("concurrency", 4, "files fetched at once")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on each HTTP request")
	maxMemory := fs.Int64("max-memory", 1024, "bound on the checker's memory, in MiB: the Go runtime's soft limit, and, less the files in flight, what the rules across files may hold")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *concurrency < 1 || *timeout <= 0 || *maxMemory < 64 {
		fs.Usage()
		return 2
	}

	cr := newCrawler(transport, *concurrency, *timeout)
	for _, arg := range fs.Args() {
		cr.remoteArgs = cr.remoteArgs || isURL(arg)
	}
	limit := *maxMemory << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	chk := check.New(check.Options{Robots: cr.sitemapsOf, MaxMemory: treeBound(limit, *concurrency)})
	cr.chk, cr.prog = chk, newProgress(stderr, chk)
	for _, arg := range fs.Args() {
		cr.start(arg)
	}
	cr.wait()
	chk.Finish()
	r := chk.Report()
	if *asJSON {
		stdout.Write(r.JSON())
	} else {
		for _, f := range r.Findings {
			fmt.Fprintln(stdout, clean(f.String()))
		}
		summary(stdout, r)
	}
	if r.Errors > 0 {
		return 1
	}
	return 0
}

// treeBound is what the rules across files may hold under a memory limit:
// the limit less what the files in flight take (each up to 50 MB as
// fetched and as parsed, so about 64 MiB apiece), and at least a quarter of it.
func treeBound(limit int64, concurrency int) int64 {
	return max(limit-int64(concurrency)*64<<20, limit/4)
}
