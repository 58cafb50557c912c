// Package export mirrors a served sitemap tree to a directory, for a build
// step that uploads static files (to object storage or a CDN) instead of
// serving them from the application.
//
// [Tree] drives any http.Handler in-process, such as a *sitemap.Sitemap,
// with no network and no listening socket: each request is a direct
// ServeHTTP call into an httptest.ResponseRecorder. [Site] does the same
// over HTTP for a remote site (the `sitemap export` command).
//
// Both read robots.txt's Sitemap: lines for the index files (or take the
// index named), fetch every file each index lists and write it under
// [Options.Dir] with the same file name and the bytes as served (a .xml.gz
// stays gzip), then write each index with its locations rewritten to
// [Options.PublicBase]. Every file is written atomically: to a temporary
// name in the same directory, synced, then renamed, so a reader of the
// directory sees a whole old file or a whole new one; the indexes are
// written last, so they never list a file not yet there.
//
// A run records each file's ETag in Dir/.sitemap-export.json (the
// manifest). The next run sends it back as If-None-Match and skips the
// files answered 304 (if their bytes are still on disk), so only changed
// files are fetched and written. The manifest is written, atomically, at
// the end of every run, failed or not, so a run after a failure resumes.
package export

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ManifestName is the name of the manifest in Options.Dir.
const ManifestName = ".sitemap-export.json"

// ErrOptions is wrapped by every error of Options' validation.
var ErrOptions = errors.New("sitemap: invalid export options")

// Options configures an export. Dir is required; the zero value of every
// other field is a working default.
type Options struct {
	// Dir is the directory written to. Required; it is created if missing.
	Dir string
	// PublicBase is the URL the files will be published under, such as
	// "https://cdn.example.com/sitemaps/": each index lists
	// PublicBase + file name. An absolute http or https URL ending in "/".
	// Empty keeps the locations the index was served with.
	PublicBase string
	// Concurrency is the number of files fetched at once. Zero means 4.
	Concurrency int
	// Progress, if set, is called after each file, from the goroutine that
	// fetched it (calls do not overlap).
	Progress func(Progress)
}

// Progress reports one finished file.
type Progress struct {
	Done, Total int    // files finished so far, and listed in all (the indexes excluded)
	File        string // the file's name
	Unchanged   bool   // answered 304: the file on disk was kept
}

// Result counts what an export did.
type Result struct {
	Indexes   int   // index files read
	Files     int   // files the indexes list
	Written   int   // files (indexes included) written
	Unchanged int   // files answered 304 and not written, and indexes whose bytes did not change
	Bytes     int64 // bytes written
}

// Tree exports the tree h serves, calling h in-process: robots.txt at
// /robots.txt names the indexes (or /sitemap_index.xml is taken when it
// names none), and every URL they list is requested from h whatever its
// host. A *sitemap.Sitemap serves its own robots.txt; a handler wrapped by
// Sitemap.Handler does too.
func Tree(ctx context.Context, h http.Handler, opts Options) (Result, error) {
	if h == nil {
		return Result{}, fmt.Errorf("%w: nil handler", ErrOptions)
	}
	client := &http.Client{Transport: handlerTransport{h}}
	return Site(ctx, client, "http://in-process/", opts)
}

// Site exports the tree of a remote site. siteURL is the site
// ("https://example.com/"), its robots.txt, or an index (a URL whose path
// ends in .xml, exported alone). A nil client means http.DefaultClient.
func Site(ctx context.Context, client *http.Client, siteURL string, opts Options) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	u, err := url.Parse(siteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Result{}, fmt.Errorf("%w: %q is not an absolute http(s) URL", ErrOptions, siteURL)
	}
	if client == nil {
		client = http.DefaultClient
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 4
	}
	r := &run{ctx: ctx, client: client, opts: opts}
	return r.export(u)
}

func (o Options) validate() error {
	if o.Dir == "" {
		return fmt.Errorf("%w: Dir is required", ErrOptions)
	}
	if o.Concurrency < 0 {
		return fmt.Errorf("%w: Concurrency %d is negative", ErrOptions, o.Concurrency)
	}
	if o.PublicBase != "" {
		u, err := url.Parse(o.PublicBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			!strings.HasSuffix(u.Path, "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("%w: PublicBase %q is not an absolute http(s) URL ending in /", ErrOptions, o.PublicBase)
		}
	}
	return nil
}
