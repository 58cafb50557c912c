package sitemap

import (
	"context"
	"log/slog"
	"strings"

	"github.com/freshmap/sitemap/internal/purge"
)

// The CDN purge (Config.OnPurge): a CDN in front of the sitemap keeps
// each file for its max-age; when a file's bytes change, OnPurge is told
// which, so that the CDN can drop exactly those. The rules, each held by
// a test:
//
//  1. A file is purged when a build made bytes other than the ones last
//     built (here, by another replica, or by an earlier process whose
//     clocks a Store or ClockFile kept), and when a file that had bytes
//     is gone (404). A rebuild that made the same bytes, a revalidation,
//     a copy taken from the Store, and a file built for the first time
//     (nothing is known of it before) purge nothing
//     (TestPurgeNoChangeNoCall).
//  2. It is told by the replica that built the file, which holds the
//     fleet's lock for it: once per fleet (TestPurgeFleetOnce).
//  3. Files are gathered for a second (purge.Delay) from the first one
//     and told in one call, each once: a page and the index that lists
//     it, rebuilt one after the other, are one call (TestPurgeOneChange;
//     internal/purge's TestBatches).
//  4. OnPurge runs on a goroutine of its own (internal/purge), one call
//     at a time, with a context that ends after purge.Timeout or at
//     Close; an error is logged, and not retried (the TTL and max-age
//     bound what the CDN serves meanwhile); a panic is recovered and
//     logged with its stack, and the purger goes on (TestPanics). Close
//     tells what is queued, within what is left of its bound
//     (BuildTimeout), and returns then even if OnPurge ignores its
//     context: that call is left to end on its own, and logged
//     (TestHangs, TestPurgeClose).
//  5. With OnPurge set, each response of a file names it in
//     Surrogate-Key (Fastly and others) and Cache-Tag (Cloudflare): the
//     key is the host, the base path and the file's name without its
//     extension, such as "example.com/shop/sitemap-products-3", shared by
//     every form of the file (.xml.gz, .xml, .txt, .html and its parts);
//     an index file's is "example.com/shop/sitemap_index" (and
//     "…/sitemap_index-2" on), a feed's its file name,
//     "example.com/shop/sitemap-news.atom" (TestPurgeHeaders).

// Purge is what Config.OnPurge is told: the files whose bytes changed.
type Purge struct {
	// URLs are the files' public URLs: a page's .xml.gz, .xml and .txt
	// (and .html with Config.HTML; its further parts are named by its key
	// only), an index file's .xml (and the index's .html), a feed's .atom.
	URLs []string
	// Keys are the files' keys, one a file, as their responses name them
	// in Surrogate-Key and Cache-Tag.
	Keys []string
}

// newPurger starts the purger that tells fn, Config.OnPurge (rules 3
// and 4: internal/purge).
func newPurger(fn func(context.Context, Purge) error, log *slog.Logger) *purge.Purger {
	return purge.New(func(ctx context.Context, b purge.Batch) error { return fn(ctx, Purge(b)) }, log)
}

// purgeKey is the key of file number file (from 1; an index's) of
// document k (rule 5).
func (st *site) purgeKey(k docKey, file int) string {
	switch k.kind {
	case docIndex:
		return st.base.host + st.base.path + strings.TrimSuffix(st.indexFileName(file), ".xml")
	case docFeed:
		return st.base.host + st.base.path + st.sections[k.sec].feed.name
	}
	return st.base.host + st.base.path + st.htmlStem(k)
}

// purgeURLs are the public URLs of file number file of document k.
func (st *site) purgeURLs(k docKey, file int) []string {
	switch k.kind {
	case docIndex:
		urls := []string{st.base.url + st.indexFileName(file)}
		if file == 1 && st.IndexName != rootName {
			urls = append(urls, st.base.url+rootName) // the index too, where the application has none (middleware.go)
		}
		if st.HTML && file == 1 {
			urls = append(urls, st.base.url+htmlPartName(st.htmlStem(k), 1))
		}
		return urls
	case docFeed:
		return []string{st.base.url + st.sections[k.sec].feed.name}
	}
	stem := st.base.url + st.htmlStem(k)
	urls := []string{stem + ".xml.gz", stem + ".xml", stem + ".txt"}
	if st.HTML {
		urls = append(urls, stem+".html")
	}
	return urls
}

// tagsOf returns the Surrogate-Key and Cache-Tag header value of file
// number file of k, whose copy is e: made once per copy (rule 5), so that
// a response allocates nothing for it.
func (st *site) tagsOf(e *entry, k docKey, file int) []string {
	if t := e.tags.Load(); t != nil {
		return *t
	}
	t := []string{st.purgeKey(k, file)}
	e.tags.Store(&t)
	return t
}

// builtHashes returns the XML hashes of the files of document k as last
// built, by file number less one (one file but for the index), and
// whether each is known: from last, the copy a build replaces, or else
// from the clocks, which a Store or ClockFile keeps across replicas and
// restarts (rule 1).
func (d *documents) builtHashes(k docKey, last *entry) []uint64 {
	var hashes []uint64
	if last != nil {
		for n := 1; n <= last.files(); n++ {
			hashes = append(hashes, last.file(n).hash)
		}
		return hashes
	}
	for n := 1; ; n++ {
		ck := k
		if k.kind == docIndex {
			ck = indexFileKey(n)
		}
		c := d.clocks.state(ck)
		if !c.built || n > maxIndexFiles {
			return hashes
		}
		hashes = append(hashes, c.hash)
		if k.kind != docIndex {
			return hashes
		}
	}
}

// purge queues the files of k whose bytes changed from was (builtHashes)
// to e's; e nil means k is gone (rule 1).
func (r *reporter) purge(k docKey, was []uint64, e *entry) {
	if r.purger == nil {
		return
	}
	files := 0
	if e != nil {
		files = e.files()
	}
	for n := 1; n <= max(files, len(was)); n++ {
		switch {
		case n > len(was): // built for the first time
			continue
		case n <= files && e.file(n).hash == was[n-1]:
			continue
		}
		r.purger.Push(r.site.purgeKey(k, n), r.site.purgeURLs(k, n))
	}
}
