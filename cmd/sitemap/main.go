// Command sitemap checks sitemaps against the protocol's rules, with no
// xmllint needed, and exports a served tree to a directory.
//
//	sitemap check [-json] [-concurrency N] [-timeout D] [-deadline D] [-max-files N] [-allow-private] [-max-memory MiB] [-deep [-deep-sample N] [-deep-max N]] URL|FILE…
//	sitemap crawl [-json] [-concurrency N] [-timeout D] [-deadline D] [-max-files N] [-allow-private] URL…
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
// summary table (with -deep, the pages fetched by status); -json prints
// one JSON object instead. The exit status is 1 if any error was found,
// and 2 on a usage error.
//
// Whatever a robots.txt or an index lists, the walk is bounded: a pool of
// -concurrency workers, at most -max-files files, -deadline for the whole
// run, the first 500 KiB of a robots.txt (as crawlers read it), and no
// connection to a loopback, private or link-local address other than the
// hosts of the URLs given, unless -allow-private.
//
// Crawl walks a tree as a crawler would, robots.txt → indexes → files,
// within the same bounds, and counts what it finds: robots.txt files,
// indexes, files, URLs, bytes on the wire and uncompressed, and errors
// (a fetch that failed, a status other than 200, a file that does not
// parse), with progress on stderr. It judges no rule. The exit status is
// 1 if any error was found.
//
// Export mirrors the tree of a site (or of one index, given its URL) to
// DIR, with the package export: every file as served, each index listing
// its files under -public, each file written atomically, and only files
// whose ETag changed since the last export fetched and written. The exit
// status is 1 if the export failed, and 2 on a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/freshmap/sitemap/check"
)

func main() {
	log.SetOutput(cleanLines{os.Stderr}) // what net/http logs may quote a server's bytes
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, http.DefaultTransport))
}

const usage = "usage: sitemap check [-json] [-concurrency N] [-timeout D] [-deadline D] [-max-files N] [-allow-private] [-max-memory MiB] [-deep [-deep-sample N] [-deep-max N]] URL|FILE…\n" +
	"       sitemap crawl [-json] [-concurrency N] [-timeout D] [-deadline D] [-max-files N] [-allow-private] URL…\n" +
	"       sitemap export -o DIR [-public URL] [-concurrency N] [-timeout D] URL"

// run is the command, with its outputs and transport given so that tests
// can run it. It returns the exit status.
func run(args []string, stdout, stderr io.Writer, transport http.RoundTripper) int {
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr, transport)
	}
	if len(args) > 0 && args[0] == "crawl" {
		return runCrawl(args[1:], stdout, stderr, transport)
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print one JSON object: findings and counts")
	wf := addWalkFlags(fs)
	maxMemory := fs.Int64("max-memory", 1024, "bound on the checker's memory, in MiB: the Go runtime's soft limit; past a quarter of it less 32 MiB a file in flight, the rules across files spill to temporary files ($TMPDIR)")
	deepOn := fs.Bool("deep", false, "also fetch a sample of the pages each sitemap file lists, and check them: a 200, no redirect, no noindex, the canonical link, robots.txt")
	deepSample := fs.Int("deep-sample", 10, "with -deep: pages sampled of each sitemap file")
	deepMax := fs.Int("deep-max", 1000, "with -deep: pages fetched at most in all")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() == 0 || !wf.valid() || *maxMemory < 64 || *deepSample < 1 || *deepMax < 1 {
		fs.Usage()
		return 2
	}

	cr, cancel := wf.crawler(fs.Args(), transport)
	defer cancel()
	if *deepOn {
		cr.deep = newDeep(cr.transport, *deepSample, *deepMax)
	}
	limit := *maxMemory << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	chk := check.New(check.Options{Robots: cr.sitemapsOf, MaxMemory: treeBound(limit, *wf.concurrency)})
	cr.chk, cr.prog = chk, newProgress(stderr, chk.Counts)
	for _, arg := range slices.Backward(fs.Args()) {
		cr.start(arg) // the last queued is done first
	}
	cr.wait()
	chk.Finish()
	r := chk.Report()
	if cr.deep != nil {
		r.Pages = cr.deep.fetched()
	}
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

// walkFlags are the flags check and crawl share: how the tree is walked.
type walkFlags struct {
	concurrency, maxFiles *int
	timeout, deadline     *time.Duration
	allowPrivate          *bool
}

func addWalkFlags(fs *flag.FlagSet) walkFlags {
	return walkFlags{
		concurrency:  fs.Int("concurrency", 4, "files fetched at once (and requests in flight)"),
		timeout:      fs.Duration("timeout", 30*time.Second, "bound on each HTTP request"),
		deadline:     fs.Duration("deadline", 30*time.Minute, "bound on the whole run; 0 means none"),
		maxFiles:     fs.Int("max-files", 100000, "robots.txt and sitemap files followed at most"),
		allowPrivate: fs.Bool("allow-private", false, "let the tree name loopback, private and link-local addresses (the hosts of the URLs given are always allowed)"),
	}
}

func (w walkFlags) valid() bool {
	return *w.concurrency >= 1 && *w.timeout > 0 && *w.deadline >= 0 && *w.maxFiles >= 1
}

// crawler returns a crawler for args, through transport with the address
// guard, ending at the deadline; cancel releases it.
func (w walkFlags) crawler(args []string, transport http.RoundTripper) (*crawler, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if *w.deadline > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), *w.deadline)
	}
	if transport == nil {
		transport = http.DefaultTransport
	}
	g := newGuard(*w.allowPrivate, args, transport)
	cr := newCrawler(ctx, g.transport(transport), *w.concurrency, *w.maxFiles, *w.timeout)
	cr.deadline, cr.guard = *w.deadline, g
	for _, arg := range args {
		cr.remoteArgs = cr.remoteArgs || isURL(arg)
	}
	return cr, cancel
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
