// Command sitemap checks sitemaps against the protocol's rules, with no
// xmllint needed, and exports a served tree to a directory.
//
//	sitemap check [-json] [-concurrency N] [-timeout D] [-max-memory MiB] [-deep [-deep-sample N] [-deep-max N]] URL|FILE…
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
// With -deep, a sample of the pages each remote sitemap file lists
// (-deep-sample a file, -deep-max in all) is fetched too, redirects not
// followed, with the header Sitemap-Audit: 1, and checked as the
// middleware's self-audit checks them: a 200, no redirect, no noindex, a
// canonical link naming the listed URL, allowed to Googlebot by the
// site's robots.txt. These findings are warnings (the page-* rules).
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

const usage = "usage: sitemap check [-json] [-concurrency N] [-timeout D] [-max-memory MiB] [-deep [-deep-sample N] [-deep-max N]] URL|FILE…\n" +
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
	maxMemory := fs.Int64("max-memory", 1024, "bound on the checker's memory, in MiB: the Go runtime's soft limit; past a quarter of it less 32 MiB a file in flight, the rules across files spill to temporary files ($TMPDIR)")
	deepOn := fs.Bool("deep", false, "also fetch a sample of the pages each sitemap file lists, and check them: a 200, no redirect, no noindex, the canonical link, robots.txt")
	deepSample := fs.Int("deep-sample", 10, "with -deep: pages sampled of each sitemap file")
	deepMax := fs.Int("deep-max", 1000, "with -deep: pages fetched at most in all")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *concurrency < 1 || *timeout <= 0 || *maxMemory < 64 || *deepSample < 1 || *deepMax < 1 {
		fs.Usage()
		return 2
	}

	cr := newCrawler(transport, *concurrency, *timeout)
	if *deepOn {
		cr.deep = newDeep(transport, *deepSample, *deepMax)
	}
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

// treeBound is what the rules across files may hold in memory, past
// which they spill to disk, under a memory limit. The garbage collector
// lets the heap grow to twice what is live, so half the limit is for what
// is live; of that half, the files in flight take up to 64 MiB apiece (50
// MB as fetched and as parsed), and the rules across files half of what
// is left, at least a sixteenth of the limit: 128 MiB by default.
func treeBound(limit int64, concurrency int) int64 {
	return max(limit/2-int64(concurrency)*64<<20, limit/8) / 2
}
