package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// A builder makes the documents of one kind (page, index, feed) from the
// Source and the encoder. It reads what documents gather for it (job)
// and returns the copy and what else must happen (effects); it never
// touches the cache, the ledger or the tier itself.
type builder interface {
	build(ctx context.Context, j job) (*entry, effects, error)
}

// job is what a build reads besides its Source.
type job struct {
	key     docKey
	old     *entry // the copy the build replaces, if any
	current bool   // old was made after every change said of key
	index   *entry // the cached index, if any: a page's PageInfo and Version
	prev    *entry // a page's last copy, old or cached: what changed is derived against it
	alone   bool   // built with no clock agreed with the other replicas: no Last-Modified (tier.go)
	// cached reports whether a page is cached (an index build).
	cached func(docKey) bool
	// storedClocks merges the page clocks other replicas stored (an
	// index build).
	storedClocks func(ctx context.Context, pages [][]PageInfo)
}

// effects are what must happen after a build besides keeping its copy.
type effects struct {
	moved   bool     // a page's clock moved: the index, which lists it, is out of date
	outdate []docKey // documents that changed (an index build: pages whose Version moved)
	refresh []docKey // cached copies to rebuild in the background
	change  *Change  // what a page changed, for OnChange and IndexNow; nil if nothing
}

// tools are what every builder builds with besides its job.
type tools struct {
	site   *site
	clocks *clocks
	rep    *reporter
	now    func() time.Time
}

// pageBuilder builds the pages of every section.
type pageBuilder struct{ *tools }

// build builds page k. If the copy it replaces is current and a newer
// index shows the page's Version unchanged, that copy is renewed without
// reading the page.
//
// A page with no URL to write (every URL its Source yields is rejected,
// or it yields none) is an empty <urlset>, 200, while its Source's Pages
// still lists it, as the index does: a crawler that follows the index
// never gets a 404 (TestIndexNeverListsA404). The rejections are
// reported as ever (OnReject, the log); the sitemap schema wants one
// <url> at least, and the checker warns of an empty file. A page that
// Pages no longer lists is gone: errNotFound.
func (b pageBuilder) build(ctx context.Context, j job) (*entry, effects, error) {
	now := b.now()
	k := j.key
	sec := b.site.sections[k.sec]
	var info PageInfo
	if idx := j.index; idx != nil {
		var listed bool
		info, listed = idx.page(k.sec, k.page)
		if old := j.old; old != nil && j.current && !old.unclocked && listed && info.Version != "" && idx.built.After(old.built) &&
			info.Version == old.info.Version && info.LastMod.Equal(old.info.LastMod) {
			b.rep.revalidated()
			return old.renewed(now), effects{}, nil
		}
	}
	spec := sec.spec
	urls := b.rep.urls(sec, k)
	defer urls.done() // one log line for all the URLs skipped, however many
	spec.report, spec.notice = urls.rejected, urls.noticed
	var tr *tracker
	if b.rep.tracking() {
		var prev []urlSum
		if j.prev != nil {
			prev = j.prev.sums
			if prev == nil { // a copy from the Store, which keeps no hashes: read them back
				prev, _ = sumsOf(j.prev.gz) // a copy that does not read back is as none
			}
		}
		tr = newTracker(prev, b.clocks.known(k), len(prev))
		spec.visit = tr.visit
	}
	spec.now = now
	if a := b.rep.audit; a != nil && a.LeavesOut() {
		spec.omit = a.Omits // Audit.LeaveOut
	}
	src := sec.src
	spec.emptyOK = true // unless Pages no longer lists it (below)
	l, isLatest := src.(latest)
	if isLatest {
		src, spec.emptyOK = l.at(now, &spec), k.page == 1 // latest.go, rules 3 and 4
	}
	start := time.Now()
	var st pageStats
	gz, sum, err := compress(b.site.gzipLevel, func(w io.Writer) (err error) {
		st, err = encodePage(ctx, src, k.page, w, &spec)
		return err
	})
	dur := time.Since(start)
	b.rep.timed(k, dur)
	if errors.Is(err, errEmptyPage) {
		return nil, effects{}, errNotFound
	}
	if err != nil {
		return nil, effects{}, err
	}
	if st.urls == 0 && !isLatest {
		if ok, err := pageListed(ctx, sec.src, k.page); err != nil {
			return nil, effects{}, fmt.Errorf("reading the pages of section %q: %w", sec.name, err)
		} else if !ok {
			return nil, effects{}, errNotFound
		}
	}
	b.rep.built(k)
	b.rep.pageBuilt(k, gz)
	if st.future > 0 {
		b.rep.future(sec, k, st.future, st.futureLoc)
	}
	at, _, moved := b.clocks.built(k, sum, st.newest, info.Changed, now, !j.alone)
	e := newEntry(gz, sum, b.site.gzipLevel, at, now)
	e.info, e.unclocked, e.alone, e.urls = info, at.IsZero() && !j.alone, j.alone, st.urls
	fx := effects{moved: moved}
	if tr != nil {
		e.sums = tr.sums
		fx.change = b.change(sec, k, tr, j.prev)
	}
	b.rep.log.Debug("sitemap: built page", "section", sec.name, "page", k.page, "urls", st.urls,
		"rejected", st.rejected, "corrected", st.corrected, "left_out", st.leftOut, "bytes", st.bytes, "gzip_bytes", len(gz), "duration", dur, "clock", at)
	return e, fx, nil
}

// pageListed reports whether src's Pages lists page n now: an empty page
// that it lists is served (build). It reads Pages only as far as n.
func pageListed(ctx context.Context, src Source, n int64) (bool, error) {
	for info, err := range src.Pages(ctx) {
		if err != nil {
			return false, err
		}
		if info.Number >= n {
			return info.Number == n, nil
		}
	}
	return false, ctx.Err()
}

// change is what page k of sec changed, as tr saw it built; prev is the
// previous copy, read only for removed URLs.
func (b pageBuilder) change(sec *section, k docKey, tr *tracker, prev *entry) *Change {
	var prevGz []byte
	if prev != nil {
		prevGz = prev.gz
	}
	removed, err := tr.removed(prevGz)
	if err != nil { // cannot happen: we compressed it
		b.rep.log.Error("sitemap: the previous copy of a page does not decompress; its removed URLs are not reported",
			"page", b.site.fileName(k), "err", err)
	}
	return &Change{Section: sec.name, Page: k.page, Added: tr.added, Changed: tr.changed, Removed: removed}
}
