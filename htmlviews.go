package sitemap

import (
	"context"
	"fmt"
	"time"

	"github.com/freshmap/sitemap/internal/htmlview"
)

// The HTML views of documents (Config.HTML, html.go): made once per
// cached copy, an index's again when a page built since shows another URL
// count, and a part's copy with notes once per change of its notes; all
// counted with the copy in the cache's budget.

// htmlPart returns part n of the HTML view of e, the copy of k, with its
// notes (their HTML, appendNotes; none if empty), or errNotFound. notes
// is asked at most once a second per view (htmlView.notesOf). The
// view is made once per copy and counted in the cache's budget, an
// index's made again when a page built since shows another URL count
// (htmlStale); a part's copy with notes once per change of its notes
// (htmlPart.withNotes). Making a view takes a build slot (MaxBuilds),
// waited for while ctx lasts: it costs several times the XML's build
// (BENCHMARKS.md).
func (d *documents) htmlPart(ctx context.Context, k docKey, e *entry, n int, notesOf func() []byte) (*entry, error) {
	v := e.html.Load()
	if v == nil || d.htmlStale(v) {
		var err error
		if v, err = d.makeHTML(ctx, k, e); err != nil {
			return nil, fmt.Errorf("the HTML view of %s: %w", d.site.fileName(k), err)
		}
	}
	p := v.part(n)
	if p == nil {
		return nil, errNotFound
	}
	notes := v.notesOf(d.now().Unix(), notesOf)
	if len(notes) == 0 {
		return p.bare, nil
	}
	return p.withNotes(notes, d.site.gzipLevel, e.built, func(c *notedPart) {
		d.cache.swapForm(k, e, func() (bool, int64, int64) {
			if e.html.Load() != v {
				return false, 0, 0 // the view was made again meanwhile
			}
			old := p.noted.Swap(c)
			if old == nil {
				return true, int64(len(c.e.gz)), 0
			}
			cp := old.e.ownCopy() // the plain copy of the old notes goes with them
			return true, int64(len(c.e.gz)-len(old.e.gz)) - cp, -cp
		})
	}), nil
}

// htmlStale reports whether v, an index's view, shows URL counts that a
// page built since changed: then it is made again, at once if it has one
// part (a few thousand rows), else at most once a second.
func (d *documents) htmlStale(v *htmlView) bool {
	return v.counts && v.counted != d.counted.Load() && (len(v.parts) == 1 || d.now().Sub(v.made) >= time.Second)
}

// makeHTML makes the HTML view of e, the copy of k, once at a time, and
// keeps it with e in place of the view it had, if any.
func (d *documents) makeHTML(ctx context.Context, k docKey, e *entry) (*htmlView, error) {
	e.htmlMu.Lock()
	defer e.htmlMu.Unlock()
	old := e.html.Load()
	if old != nil && !d.htmlStale(old) {
		return old, nil // made meanwhile
	}
	select {
	case d.sem <- struct{}{}:
		defer func() { <-d.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	counted, made := d.counted.Load(), d.now()
	var v *htmlView
	var err error
	switch {
	case k.kind == docIndex && !htmlview.IsURLSet(e.gz):
		v, err = d.site.indexHTML(e, d.urls)
		if v != nil {
			v.counts = true
		}
	case k.kind == docIndex: // a one-file sitemap (single.go)
		v, err = d.site.pageHTML(k, e, time.Time{})
	default:
		v, err = d.site.pageHTML(k, e, d.clocks.listedAt(k))
	}
	if err != nil {
		return nil, err
	}
	v.counted, v.made = counted, made
	d.cache.swapForm(k, e, func() (bool, int64, int64) {
		old := e.html.Swap(v) // counted under the cache's lock: the parts' copies with notes change under it too
		if old == nil {
			return true, htmlCost(v), 0
		}
		return true, htmlCost(v) - htmlCost(old), -htmlCopies(old)
	})
	return v, nil
}

// urls is the URL count of page k if a copy built here is cached, or 0.
func (d *documents) urls(k docKey) int {
	if sl, ok := d.cache.peek(k); ok {
		return sl.e.urls
	}
	return 0
}
