package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/parse"
	"golang.org/x/sync/errgroup"
)

// maxRobots bounds the robots.txt read, as crawlers do (500 KiB).
const maxRobots = 500 << 10

// run is one export.
type run struct {
	ctx    context.Context
	client *http.Client
	opts   Options

	old manifest // read at the start; never written to

	mu   sync.Mutex // guards what follows
	next manifest   // written at the end
	res  Result
	done int
}

// index is one index file: its name, where it was read, what it lists.
type index struct {
	name    string
	url     *url.URL
	entries []parse.Sitemap
}

// file is one file an index lists.
type file struct {
	name string
	url  string
}

func (r *run) export(site *url.URL) (Result, error) {
	dir := r.opts.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("sitemap: export: %w", err)
	}
	r.old = readManifest(dir)
	r.next = manifest{Files: map[string]fileState{}}

	indexes, err := r.indexes(site)
	if err != nil {
		return r.res, err
	}
	var files []file
	seen := map[string]bool{}
	for _, ix := range indexes {
		seen[ix.name] = true
	}
	for _, ix := range indexes {
		for _, e := range ix.entries {
			u, err := ix.url.Parse(e.Loc)
			if err != nil || !safeName(path.Base(u.EscapedPath())) {
				return r.res, fmt.Errorf("sitemap: export: %s lists %q, which has no usable file name", ix.name, e.Loc)
			}
			name := path.Base(u.EscapedPath())
			if seen[name] {
				return r.res, fmt.Errorf("sitemap: export: %s lists %s twice, or a file with an index's name", ix.name, name)
			}
			seen[name] = true
			files = append(files, file{name: name, url: u.String()})
			if st, ok := r.old.Files[name]; ok {
				r.next.Files[name] = st // kept if this run does not reach the file
			}
		}
	}
	r.res.Indexes, r.res.Files = len(indexes), len(files)

	g, ctx := errgroup.WithContext(r.ctx)
	g.SetLimit(r.opts.Concurrency)
	for _, f := range files {
		g.Go(func() error { return r.file(ctx, f, len(files)) })
	}
	err = g.Wait()
	if werr := r.next.write(dir); err == nil {
		err = werr
	}
	if err != nil {
		return r.res, err
	}
	// The indexes last: they never list a file not yet written.
	for _, ix := range indexes {
		if err := r.writeIndex(ix); err != nil {
			return r.res, err
		}
	}
	return r.res, nil
}

// indexes finds and reads the index files: the one named, or those
// robots.txt names (lines that are not indexes, such as feeds, are
// skipped), or sitemap_index.xml beside the site URL.
func (r *run) indexes(site *url.URL) ([]index, error) {
	if strings.HasSuffix(site.Path, ".xml") {
		ix, err := r.readIndex(site)
		return []index{ix}, err
	}
	lines, err := r.robots(site.ResolveReference(&url.URL{Path: "/robots.txt"}))
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		ix, err := r.readIndex(site.ResolveReference(&url.URL{Path: "sitemap_index.xml"}))
		return []index{ix}, err
	}
	var out []index
	names := map[string]bool{}
	for _, u := range lines {
		ix, err := r.readIndex(u)
		if errors.Is(err, parse.ErrRoot) {
			continue // a feed or a plain sitemap: not an index
		}
		if err != nil {
			return nil, err
		}
		if names[ix.name] {
			continue
		}
		names[ix.name] = true
		out = append(out, ix)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sitemap: export: robots.txt names no sitemap index")
	}
	return out, nil
}

// robots returns the absolute URLs of robots.txt's Sitemap: lines; none
// when it has none or is not there.
func (r *run) robots(u *url.URL) ([]*url.URL, error) {
	resp, err := r.get(r.ctx, u.String(), "")
	if err != nil {
		return nil, fmt.Errorf("sitemap: export: robots.txt: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	var out []*url.URL
	sc := bufio.NewScanner(io.LimitReader(resp.Body, maxRobots))
	for first := true; sc.Scan(); first = false {
		line := sc.Text()
		if first {
			line = strings.TrimPrefix(line, "\ufeff") // a byte-order mark
		}
		line, _, _ = strings.Cut(line, "#") // a comment, as Google's parser reads it
		line = strings.TrimSpace(line)
		if len(line) < len("sitemap:") || !strings.EqualFold(line[:len("sitemap:")], "sitemap:") {
			continue
		}
		if v, err := url.Parse(strings.TrimSpace(line[len("sitemap:"):])); err == nil && v.IsAbs() {
			out = append(out, v)
		}
	}
	return out, nil
}

// readIndex fetches and parses one index.
func (r *run) readIndex(u *url.URL) (index, error) {
	ix := index{name: path.Base(u.EscapedPath()), url: u}
	if !safeName(ix.name) {
		return ix, fmt.Errorf("sitemap: export: index %s has no usable file name", u)
	}
	resp, err := r.get(r.ctx, u.String(), "")
	if err != nil {
		return ix, fmt.Errorf("sitemap: export %s: %w", ix.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ix, fmt.Errorf("sitemap: export %s: %s answered %s", ix.name, u, resp.Status)
	}
	for e, err := range parse.Index(resp.Body, parse.Limits{}) {
		if err != nil {
			return ix, fmt.Errorf("sitemap: export %s: %w", ix.name, err)
		}
		ix.entries = append(ix.entries, e)
	}
	return ix, nil
}

// file fetches one listed file, conditionally if its bytes are on disk and
// the manifest has its ETag, and writes it if it changed.
func (r *run) file(ctx context.Context, f file, total int) error {
	var etag string
	if st, ok := r.old.Files[f.name]; ok && st.URL == f.url && exists(r.opts.Dir, f.name) {
		etag = st.ETag
	}
	resp, err := r.get(ctx, f.url, etag)
	if err != nil {
		return fmt.Errorf("sitemap: export %s: %w", f.name, err)
	}
	defer resp.Body.Close()
	var n int64
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
	case resp.StatusCode == http.StatusOK:
		n, err = writeAtomic(r.opts.Dir, f.name, &capped{r: resp.Body, n: sitemap.MaxBytes})
		if err != nil {
			return fmt.Errorf("sitemap: export %s: %w", f.name, err)
		}
		etag = resp.Header.Get("ETag")
	default:
		return fmt.Errorf("sitemap: export %s: %s answered %s", f.name, f.url, resp.Status)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	r.next.Files[f.name] = fileState{ETag: etag, URL: f.url}
	unchanged := resp.StatusCode == http.StatusNotModified
	if unchanged {
		r.res.Unchanged++
	} else {
		r.res.Written++
		r.res.Bytes += n
	}
	r.done++
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Done: r.done, Total: total, File: f.name, Unchanged: unchanged})
	}
	return nil
}

// writeIndex writes an index with its locations rewritten to PublicBase,
// unless the file on disk already holds those bytes.
func (r *run) writeIndex(ix index) error {
	doc := indexDoc(ix.entries, func(e parse.Sitemap) string {
		if r.opts.PublicBase == "" {
			return e.Loc
		}
		u, _ := ix.url.Parse(e.Loc) // parsed once already, in export
		return r.opts.PublicBase + path.Base(u.EscapedPath())
	})
	if old, err := os.ReadFile(filepath.Join(r.opts.Dir, ix.name)); err == nil && string(old) == string(doc) {
		r.res.Unchanged++
		return nil
	}
	n, err := writeAtomic(r.opts.Dir, ix.name, strings.NewReader(string(doc)))
	if err != nil {
		return fmt.Errorf("sitemap: export %s: %w", ix.name, err)
	}
	r.res.Written++
	r.res.Bytes += n
	return nil
}

// get sends a GET, with If-None-Match when etag is set.
func (r *run) get(ctx context.Context, u, etag string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "freshmap-sitemap-export")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	return r.client.Do(req)
}

// safeName reports whether name is a plain file name we may write: letters,
// digits, '.', '-' and '_', not starting with '.' (so never the manifest,
// a temporary file, "." or "..").
func safeName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// errTooLarge is returned by capped past its bound.
var errTooLarge = fmt.Errorf("sitemap: file larger than %d bytes", sitemap.MaxBytes)

// capped reads r, failing once more than n bytes have come.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n -= int64(k); c.n < 0 {
		return 0, errTooLarge
	}
	return k, err
}
