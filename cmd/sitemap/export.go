package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/freshmap/sitemap/export"
)

// runExport is `sitemap export`: flags, the export, progress on stderr and
// a summary line on stdout. It returns the exit status.
func runExport(args []string, stdout, stderr io.Writer, transport http.RoundTripper) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	dir := fs.String("o", "", "the directory written to (required)")
	public := fs.String("public", "", "the URL the files are published under, ending in /; the index lists them there (default: as served)")
	concurrency := fs.Int("concurrency", 4, "files fetched at once")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on each HTTP request")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *dir == "" || *concurrency < 1 || *timeout <= 0 {
		fs.Usage()
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	client := &http.Client{Transport: transport, Timeout: *timeout}
	res, err := export.Site(ctx, client, fs.Arg(0), export.Options{
		Dir:         *dir,
		PublicBase:  *public,
		Concurrency: *concurrency,
		Progress: func(p export.Progress) {
			state := "written"
			if p.Unchanged {
				state = "unchanged"
			}
			fmt.Fprintf(stderr, "%d/%d %s %s\n", p.Done, p.Total, clean(p.File), state)
		},
	})
	fmt.Fprintf(stdout, "%d indexes, %d files: %d written (%d bytes), %d unchanged\n",
		res.Indexes, res.Files, res.Written, res.Bytes, res.Unchanged)
	if err != nil {
		fmt.Fprintln(stderr, clean(err.Error()))
		if errors.Is(err, export.ErrOptions) {
			return 2
		}
		return 1
	}
	return 0
}
