package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// indexEntry is one <sitemap> of the index: page n of section sec, and
// the clock it lists.
type indexEntry struct {
	sec int
	n   int64
	at  time.Time
}

// indexBuilder builds the index from every section's Pages, without
// reading any URL. Each page's <lastmod> is its content clock (clock.go).
// A cached page whose Pages entry shows a change (another Version, or a
// newer lastmod) is to be rebuilt in the background (effects); the index
// lists it with the clock of the bytes still served until then, and is
// itself rebuilt when the page's clock moves. An index with no page at
// all is errNotFound (an empty <sitemapindex> is not valid).
//
// One index file lists at most 50,000 pages (and 52,428,800 bytes); past
// that the index has more files, sitemap_index-2.xml and on, built
// together: the returned entry is the first, and holds the others (an
// index may not list another index, so each is named in robots.txt).
type indexBuilder struct{ *tools }

func (b indexBuilder) build(ctx context.Context, j job) (*entry, effects, error) {
	now := b.now()
	start := time.Now()
	defer func() { b.rep.timed(indexKey, time.Since(start)) }() // failed or not
	pages := make([][]PageInfo, len(b.site.sections))
	var list []indexEntry
	var changed []docKey
	var future int
	var n int64 // pages listed, every section's (listPages)
	for i, sec := range b.site.sections {
		var prev int64
		for info, err := range listPages(ctx, sec.src.Pages(ctx), &n, b.site.maxPages) {
			if err != nil {
				return nil, effects{}, fmt.Errorf("reading the pages of section %q: %w", sec.name, err)
			}
			if info.Number <= prev {
				return nil, effects{}, fmt.Errorf("section %q reported page %d after page %d: pages must increase", sec.name, info.Number, prev)
			}
			prev = info.Number
			if !info.LastMod.IsZero() && !xmlenc.ValidYear(info.LastMod) {
				b.rep.log.Warn("sitemap: page lastmod out of range; omitted", "section", sec.name, "page", info.Number, "lastmod", info.LastMod)
				info.LastMod = time.Time{}
			}
			if info.LastMod.After(now.Add(maxLastModSkew)) || info.Changed.After(now.Add(maxLastModSkew)) {
				if future++; future == 1 {
					b.rep.log.Warn("sitemap: a page lastmod in the future counts as the build time, a change time in the future as unknown (logged once per index build)",
						"section", sec.name, "page", info.Number, "lastmod", info.LastMod, "changed", info.Changed)
				}
				info.LastMod = earlier(info.LastMod, now)
				if info.Changed.After(now.Add(maxLastModSkew)) {
					info.Changed = time.Time{} // not the build time: each build's would be another change (clock.go, rule 4)
				}
			}
			pages[i] = append(pages[i], info)
		}
		if err := ctx.Err(); err != nil {
			return nil, effects{}, err
		}
	}
	j.storedClocks(ctx, pages) // the clocks of pages other replicas built
	for i, ps := range pages {
		for _, info := range ps {
			k := pageKey(i, info.Number)
			cached := j.cached(k)
			at, moved := b.clocks.listed(k, info, now, cached)
			if moved && cached {
				changed = append(changed, k)
			}
			list = append(list, indexEntry{sec: i, n: info.Number, at: at})
		}
	}
	if len(list) == 0 {
		return nil, effects{}, errNotFound
	}
	if b.site.single { // Config.SingleFile (buildSingle, below)
		if onePage(pages) {
			e, err := b.buildSingle(ctx, pages, now, !j.alone)
			if err == nil {
				b.rep.built(indexKey)
				e.pages = pages
				b.rep.log.Debug("sitemap: built the one file", "duration", time.Since(start))
				return e, effects{outdate: changed, refresh: changed}, nil
			}
			if !errors.Is(err, errOutgrown) {
				return nil, effects{}, err
			}
		}
		b.rep.log.Warn("sitemap: the site does not fit one file (SingleFile); the index's name serves an index of its files", "pages", len(list))
	}
	var files []*entry
	for len(list) > 0 {
		e, n, err := b.encodeFile(list, len(files)+1, now, !j.alone)
		if err != nil {
			return nil, effects{}, err
		}
		files = append(files, e)
		list = list[n:]
	}
	b.rep.built(indexKey)
	first := files[0]
	first.pages, first.more = pages, files[1:]
	b.rep.log.Debug("sitemap: built index", "files", len(files), "duration", time.Since(start))
	return first, effects{outdate: changed, refresh: changed}, nil
}

// encodeFile writes index file number file: the entries of list from the
// first, as many as fit. It returns the file's entry and how many it
// lists.
func (b indexBuilder) encodeFile(list []indexEntry, file int, now time.Time, agreed bool) (*entry, int, error) {
	var count int
	var newest time.Time
	st := b.site
	gz, sum, err := compress(st.gzipLevel, func(w io.Writer) error {
		e := xmlenc.Get()
		defer xmlenc.Put(e)
		e.Reset(w, xmlenc.Index, 0, st.base.url, MaxURLs, MaxBytes, st.stylesheet)
		for _, it := range list {
			loc := st.base.url + st.Files[it.sec].Prefix + strconv.FormatInt(it.n, 10) + st.listExt
			err := e.AddSitemap(loc, it.at)
			if errors.Is(err, ErrPageFull) {
				break
			}
			if err != nil {
				return err
			}
			count++
			newest = later(newest, it.at)
		}
		return e.Close()
	})
	if err != nil {
		return nil, 0, err
	}
	if count == 0 { // cannot happen: one entry is far below the limits
		return nil, 0, fmt.Errorf("index file %d: no entry fits", file)
	}
	at, _, _ := b.clocks.built(indexFileKey(file), sum, newest, time.Time{}, now, agreed, false)
	e := newEntry(gz, sum, st.gzipLevel, at, now)
	e.unclocked, e.alone = at.IsZero() && agreed, !agreed
	return e, count, nil
}

// Config.SingleFile: a small site served as one sitemap file, a <urlset>
// of every section's URLs at the index's name, with no index. The rules:
//
//  1. New checks that the sections fit one file: their page sizes add up
//     to at most MaxURLs, and none is a Latest section (which has a file
//     of its own at a fixed name) (checkSingle; TestSingleFileChecked).
//  2. The index build reads every section's Pages as always; while each
//     lists page 1 at most, it writes those pages' URLs into one
//     <urlset>, each section's by its own rules, extensions and page size,
//     the namespaces of all declared once (TestSingleFile).
//  3. A site that grew past one file, a section listing a page 2 (or
//     URLs past 52,428,800 bytes), is served as without SingleFile: the
//     index's name serves a <sitemapindex> of the files, which are served
//     as ever, and a warning is logged at each such index build; once the
//     site fits again, one file again (TestSingleFileGrows). Search
//     engines take either at a submitted name.
//  4. The file's content clock is the index's (indexFileKey(1)); every
//     change to a page (Invalidate, a Version) rebuilds it as it does the
//     index. The page files stay served at their own names, listed by no
//     index while the site is one file.

// errOutgrown ends a one-file build whose URLs do not fit one file.
var errOutgrown = errors.New("the URLs do not fit one file")

// checkSingle is rule 1, with the sections completed.
func checkSingle(sections []*section, latest []bool) error {
	var sum int
	for i, sec := range sections {
		if latest[i] {
			return fmt.Errorf("SingleFile: section %q is Latest, a file of its own at a fixed name", sec.name)
		}
		sum += sec.pageSize
	}
	if sum > MaxURLs {
		return fmt.Errorf("SingleFile: the sections' page sizes add up to %d URLs, more than one file holds (%d): "+
			"give each Section a PageSize (or its Source one) so that they add up to %d at most", sum, MaxURLs, MaxURLs)
	}
	return nil
}

// onePage reports whether every section lists page 1 at most (rule 2).
func onePage(pages [][]PageInfo) bool {
	for _, ps := range pages {
		if len(ps) > 1 || len(ps) == 1 && ps[0].Number != 1 {
			return false
		}
	}
	return true
}

// buildSingle writes the one file of rule 2 from page 1 of each section
// that pages lists. It returns errOutgrown if the URLs do not fit.
func (b indexBuilder) buildSingle(ctx context.Context, pages [][]PageInfo, now time.Time, agreed bool) (*entry, error) {
	st := b.site
	var union Extensions
	for i, sec := range st.sections {
		if len(pages[i]) > 0 {
			union |= sec.spec.ext.Declared() // normalized in New, or ExtNone (settings.go), which adds nothing
		}
	}
	if union == 0 {
		union = ExtNone // no extension: reset must not take 0 for the default
	}
	var newest time.Time
	gz, sum, err := compress(st.gzipLevel, func(w io.Writer) error {
		e := xmlenc.Get()
		defer xmlenc.Put(e)
		e.Reset(w, xmlenc.URLSet, union, st.base.url, MaxURLs, st.singleMax, st.stylesheet)
		for i, sec := range st.sections {
			if len(pages[i]) == 0 {
				continue
			}
			if err := b.addSection(ctx, e, sec, now); err != nil {
				return err
			}
		}
		if e.Count() == 0 {
			return errNotFound // no valid URL: no file (an empty <urlset> would say the site has none)
		}
		newest = e.Newest()
		return e.Close()
	})
	if err != nil {
		return nil, err
	}
	at, _, _ := b.clocks.built(indexFileKey(1), sum, newest, time.Time{}, now, agreed, false)
	e := newEntry(gz, sum, st.gzipLevel, at, now)
	e.unclocked, e.alone = at.IsZero() && agreed, !agreed
	return e, nil
}

// addSection writes page 1 of sec into e, by sec's rules, as encodePage
// writes a page; the URLs it skips are reported as page 1's.
func (b indexBuilder) addSection(ctx context.Context, e *xmlenc.Encoder, sec *section, now time.Time) error {
	spec := sec.spec
	urls := b.rep.urls(sec, pageKey(sec.index, 1))
	defer urls.done()
	outgrown := false
	spec.report = func(loc string, err error) {
		if errors.Is(err, ErrPageFull) {
			outgrown = true // rule 3: not this URL's fault
			return
		}
		urls.rejected(loc, err)
	}
	spec.notice, spec.now, spec.visit = urls.noticed, now, nil
	e.UseExtensions(spec.ext) // the section's; the document declares every section's namespaces
	p := runOf(e, &spec, 1, sec.pageSize)
	for u, err := range sec.src.URLs(ctx, 1) {
		if err != nil {
			return fmt.Errorf("reading page 1 of section %q: %w", sec.name, err)
		}
		err := p.add(ctx, &u)
		if outgrown { // before err: with Strict, a URL that does not fit is an error too
			return errOutgrown
		}
		if err != nil {
			return err
		}
	}
	if p.st.future > 0 {
		b.rep.future(sec, pageKey(sec.index, 1), p.st.future, p.st.futureLoc)
	}
	return ctx.Err()
}
