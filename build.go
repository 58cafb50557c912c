package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/freshmap/sitemap/internal/segment"
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
	old     *entry   // the copy the build replaces, if any
	current bool     // old was made after every change said of key
	index   *entry   // the cached index, if any: a page's PageInfo and Version
	prev    *entry   // a page's last copy, old or cached: what changed is derived against it
	alone   bool     // built with no clock agreed with the other replicas: no Last-Modified (tier.go)
	look    pageLook // a page not current, looked at before the stamp (pagelook.go)
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
	audit   []byte   // a page's bytes just built, for the self-audit once they are kept; nil if none
}

// tools are what every builder builds with besides its job.
type tools struct {
	site   *site
	clocks *clocks
	rep    *reporter
	now    func() time.Time
	marks  segment.Marks[docKey] // pages' segments said to have changed (InvalidateKeys)
}

// pageBuilder builds the pages of every section.
type pageBuilder struct{ *tools }

// build builds page k. If the copy it replaces is current, has a clock,
// and a newer index shows the page's Version unchanged, that copy is
// renewed without reading the page. A copy without a clock (built alone,
// or in a second that could not give one: clock.go) is built again: its
// renewal, fresh for a TTL, would serve it undated for as long, and again
// after, instead of giving it the clock the replicas agree on once the
// Store answers (TestUndatedCopyGetsClock).
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
		if old := j.old; old != nil && j.current && !old.lastMod.IsZero() && listed && info.Version != "" && idx.built.After(old.built) &&
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
	var marks segment.Taken
	if _, ok := src.(SegmentSource); ok {
		marks = b.marks.Take(k)
	}
	lk := j.look // clock.go, rule 5: a page said to have changed, looked at before and after its read
	pg, err := b.encode(ctx, src, k, &spec, j, tr, marks, now)
	exact := err == nil && lk.after(ctx, k.page)
	dur := time.Since(start)
	b.rep.timed(k, dur)
	if errors.Is(err, errEmptyPage) {
		return nil, effects{}, errNotFound
	}
	if err != nil {
		return nil, effects{}, err
	}
	gz, st, sum := pg.gz, pg.st, pg.tab.Sum()
	if pg.spliced {
		b.rep.stats.splices.Add(1)
	}
	if st.urls == 0 && !isLatest {
		if ok, err := pageListed(ctx, sec.src, k.page); err != nil {
			return nil, effects{}, fmt.Errorf("reading the pages of section %q: %w", sec.name, err)
		} else if !ok {
			return nil, effects{}, errNotFound
		}
	}
	b.rep.built(k)
	if st.future > 0 {
		b.rep.future(sec, k, st.future, st.futureLoc)
	}
	if exact {
		info = lk.before // the bytes are those of this PageInfo (clock.go, rule 5)
	}
	at, _, moved := b.clocks.built(k, sum, st.newest, info.Changed, now, !j.alone, exact)
	e := newEntry(gz, sum, b.site.gzipLevel, at, now)
	e.info, e.unclocked, e.alone, e.urls, e.segs = info, at.IsZero() && !j.alone, j.alone, st.urls, pg.tab
	b.marks.Built(k, marks, sum)
	fx := effects{moved: moved, audit: gz}
	switch {
	case pg.change != nil:
		e.sums, fx.change = pg.sums, pg.change
	case tr != nil:
		e.sums = pg.sums
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

// Pages are built and kept as segments compressed apart
// (internal/segment): a rebuild compresses again only the segments whose
// bytes changed, and a page of a SegmentSource, some of whose segments
// InvalidateKeys said changed, reads only those again and keeps the
// others' bytes as they are. Either way the bytes are those a build of
// the whole page makes.

// builtPage is what encode made of a page.
type builtPage struct {
	gz      []byte
	tab     *segment.Table
	st      pageStats
	spliced bool     // rebuilt from some segments, the others kept
	sums    []urlSum // with change tracking: the page's URL hashes
	change  *Change  // with change tracking, when spliced: what the segments read changed
}

// encode builds page k of src by spec: from the segments marks names
// when it can (splice), else whole, reusing the compressed bytes of the
// previous copy's segments that come again. tr, if set, tracks the
// changes of a whole build.
func (b pageBuilder) encode(ctx context.Context, src Source, k docKey, spec *pageSpec, j job, tr *tracker, marks segment.Taken, now time.Time) (builtPage, error) {
	prevTab := b.tableOf(j.prev)
	ss, bySource := src.(SegmentSource)
	var prevSums []urlSum // with change tracking: the previous copy's URL hashes (read back if it came from the Store)
	if tr != nil {
		prevSums = tr.prev
	}
	if bySource && marks.OK {
		if pl := b.plan(ss, spec, j.prev, prevTab, marks, tr != nil, len(prevSums), now); pl != nil {
			pg, err := b.splice(ctx, ss, k, *spec, pl, prevSums, tr != nil)
			if !errors.Is(err, errSplice) {
				return pg, err
			}
		}
	}
	if bySource && marks.Marked {
		b.rep.stats.spliceFallbacks.Add(1) // InvalidateKeys named segments, and the page is read whole
	}
	spec.segs = segment.NewWriter(b.site.gzipLevel, bySource, prevTab)
	defer spec.segs.Abort() // also when the Source panics: its helpers end
	st, err := encodePage(ctx, src, k.page, spec.segs, spec)
	if err != nil {
		return builtPage{}, err
	}
	gz, tab, err := spec.segs.Close()
	if err != nil {
		return builtPage{}, err
	}
	tab.Full = now
	pg := builtPage{gz: gz, tab: tab, st: st}
	if tr != nil {
		pg.sums = tr.sums
	}
	return pg, nil
}

// tableOf returns the segment table of prev, the previous copy, to splice
// or reuse; nil if it has none, or if its table came with a stored copy
// and does not check: before any of its segments is reused, each is
// decompressed alone and compared with its figures, and its <url>
// entries counted (segment.Table.Check). A copy from the Store was
// checked against its table's figures when read (record.go); this is
// the rest, paid by each build whose previous copy is such a one (the
// copy it makes is its own: the next build's pays nothing).
func (b pageBuilder) tableOf(prev *entry) *segment.Table {
	switch {
	case prev == nil:
		return nil
	case !prev.segsStored:
		return prev.segs // built here (nil if none)
	}
	t := prev.segs
	err := t.Check(func(i int, run []byte) error {
		if bytes.Count(run, urlTag) != t.Segs[i].URLs {
			return errTableURLs
		}
		return nil
	})
	if err != nil {
		b.rep.log.Warn("sitemap: the segment table of a stored copy does not match its bytes; the page is read whole", "err", err)
		return nil
	}
	return t
}

// urlTag starts each <url> entry of a page, and nothing else in it (a
// '<' in text is escaped).
var urlTag = []byte("<url>")

// errTableURLs: a stored table's segment holds another number of entries
// than it says.
var errTableURLs = errors.New("a segment's entries are not as many as its table says")

// plan returns the plan of a rebuild of a SegmentSource page from the
// segments marks names, or nil if the page must be read whole: when the
// previous copy is not the one the marks are relative to, or old, its
// segment table (tableOf), is none or not of its Source's cut (a copy
// from an older replica, or of other settings); when the page was last
// read whole more than TTL ago (a change nobody said is then seen as it
// would be without InvalidateKeys);
// when its bytes depend on more than its URLs (hreflang clusters, news
// and its age bound, the self-audit's leaving out); or when the kept
// segments fill the page's limits.
func (b pageBuilder) plan(ss SegmentSource, spec *pageSpec, prev *entry, old *segment.Table, marks segment.Taken, tracking bool, prevSums int, now time.Time) *splicePlan {
	if prev == nil || old == nil || prev.hash != marks.Base {
		return nil
	}
	body := old.Body()
	switch {
	case !old.BySource || old.Level != b.site.gzipLevel || len(body) != ss.Segments():
		return nil
	case !now.Before(old.Full.Add(b.site.ttl)):
		return nil
	case spec.cluster != nil || spec.omit != nil || spec.ext&ExtNews != 0:
		return nil
	case tracking && prevSums != old.URLs():
		return nil
	}
	pl := &splicePlan{old: old, reread: make([]bool, len(body))}
	var keptBytes int64
	for i, s := range body {
		if marks.Segs[i] || s.Volatile {
			pl.reread[i] = true
			continue
		}
		pl.keptURLs += s.URLs
		pl.keptRead += s.Read
		keptBytes += s.Z.Size()
	}
	maxURLs, maxBytes := spec.maxURLs, spec.maxBytes
	if maxURLs <= 0 || maxURLs > MaxURLs {
		maxURLs = MaxURLs
	}
	if maxBytes <= 0 || maxBytes > MaxBytes {
		maxBytes = MaxBytes
	}
	if pl.keptURLs >= maxURLs || pl.keptRead >= maxURLs || keptBytes >= maxBytes {
		return nil
	}
	pl.maxURLs, pl.maxBytes = maxURLs-pl.keptURLs, maxBytes-keptBytes
	return pl
}

// splice rebuilds page k of ss by pl: the segments it names are read
// again, encoded and compressed, and the others kept. With change
// tracking, the changes are those of the segments read, each against the
// previous copy's same segment.
func (b pageBuilder) splice(ctx context.Context, ss SegmentSource, k docKey, spec pageSpec, pl *splicePlan, prevSums []urlSum, tracking bool) (builtPage, error) {
	body := pl.old.Body()
	var trs []*tracker
	var firsts []int // where each body segment's URLs start in prevSums
	if tracking {
		trs = make([]*tracker, len(body))
		firsts = make([]int, len(body)+1)
		for i, s := range body {
			firsts[i+1] = firsts[i] + s.URLs
		}
		var cur *tracker
		spec.visit = func(entry []byte, lastmod time.Time) { cur.visit(entry, lastmod) }
		since := b.clocks.known(k)
		pl.before = func(i int) {
			segSums := prevSums[firsts[i]:firsts[i+1]]
			cur = newTracker(segSums, since, len(segSums))
			trs[i] = cur
		}
	}
	report := spec.report
	spec.report = func(loc string, err error) {
		if errors.Is(err, ErrPageFull) {
			pl.full = true
		}
		if report != nil {
			report(loc, err)
		}
	}
	spec.segs, spec.splice = segment.NewWriter(b.site.gzipLevel, true, pl.old), pl
	defer spec.segs.Abort()
	st, err := encodePage(ctx, ss, k.page, spec.segs, &spec)
	if errors.Is(err, errOverPageSize) || err == nil && pl.full {
		return builtPage{}, errSplice
	}
	if err != nil {
		return builtPage{}, err
	}
	gz, tab, err := spec.segs.Close()
	if err != nil {
		return builtPage{}, err
	}
	tab.Full = pl.old.Full
	st.urls, st.bytes, st.newest = tab.URLs(), tab.Size(), tab.Newest()
	pg := builtPage{gz: gz, tab: tab, st: st, spliced: true}
	if !tracking {
		return pg, nil
	}
	ch := &Change{Section: b.site.sections[k.sec].name, Page: k.page}
	for i, t := range trs {
		if t == nil {
			pg.sums = append(pg.sums, prevSums[firsts[i]:firsts[i+1]]...)
			continue
		}
		pg.sums = append(pg.sums, t.sums...)
		ch.Added, ch.Changed = append(ch.Added, t.added...), append(ch.Changed, t.changed...)
		removed, err := t.removed(body[i].Z.Member())
		if err != nil {
			return builtPage{}, fmt.Errorf("reading back segment %d of the previous copy: %w", i, err)
		}
		ch.Removed = append(ch.Removed, removed...)
	}
	pg.change = ch
	return pg, nil
}
