package sitemap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/xmlenc"
)

// The Atom 1.0 feeds (RFC 4287): with Config.FeedEntries set, each section
// whose Source implements RecentLister has a feed of its most recently
// changed URLs at sitemap-NAME.atom (sitemap.atom for an unnamed section),
// which robots.txt names, since search engines read Atom feeds as
// sitemaps. A feed is a document like a page: built on request from one
// Recent call, cached under its own key for TTL, built once however many
// ask, its failures remembered for RetryAfter.
//
// What a feed holds:
//
//   - The feed's id and its self link are the feed's own URL; its title is
//     "NAME: recently changed"; its author is Config.FeedAuthor or the
//     host; its updated is its content clock (clock.go), which is also its
//     Last-Modified: the newest entry's updated, moved forward whenever the
//     entries change otherwise (a URL that leaves the feed).
//   - One entry per URL, newest first: id and link the URL in the
//     sitemap's canonical form (the same location rules as a page, so a
//     feed never holds a URL the sitemap would refuse), title the news
//     title if the URL has one and the URL otherwise, updated its LastMod
//     in RFC 3339, in UTC to the second. A URL without LastMod is skipped
//     and reported (Atom requires updated, and a feed has no page clock to
//     date it), as is a URL that breaks a location rule; a URL listed twice
//     keeps its newest entry. A feed with no entry is still a valid feed.

const (
	nsAtom = "http://www.w3.org/2005/Atom"
	// feedStart opens a feed; what follows it is written by buildFeed.
	feedStart = xmlenc.XMLHeader + `<feed xmlns="` + nsAtom + `">` + "\n"
	feedEnd   = "</feed>\n"
)

// feedConfig is what every feed shares.
type feedConfig struct {
	entries int    // the most entries of a feed; 0 means no feeds
	author  string // the author name, XML-escaped
	base    string // the canonical base URL
}

// feed is the Atom feed of one section.
type feed struct {
	src   RecentLister
	name  string // the file name: sitemap-NAME.atom or sitemap.atom
	loc   string // the feed's absolute URL: its id and self link (XML-safe)
	title string // XML-escaped
}

// newFeedConfig checks and completes the feed settings of a Config.
func newFeedConfig(base baseURL, entries int, author string) (feedConfig, error) {
	author = strings.TrimSpace(author)
	if author == "" {
		author = base.host
	}
	if strings.ContainsAny(author, "\r\n") {
		return feedConfig{}, errors.New("FeedAuthor has a line break")
	}
	return feedConfig{entries: entries, author: string(xmlenc.AppendEscaped(nil, author)), base: base.url}, nil
}

// feedOf returns the feed of sec, whose Source is src, or nil if feeds are
// off or src cannot list its recent URLs.
func (c feedConfig) feedOf(sec *section, src Source) *feed {
	rl, ok := src.(RecentLister)
	if c.entries == 0 || !ok {
		return nil
	}
	f := &feed{src: rl, name: unnamedFeed, title: "Recently changed"}
	if sec.name != "" {
		f.name, f.title = "sitemap-"+sec.name+".atom", sec.name+": recently changed"
	}
	f.loc = c.base + f.name // the base is XML-safe, and so are section names
	return f
}

// warnNoFeed logs, at New, the sections of st that have no feed although
// feeds are on: their Source does not implement RecentLister (FromSlice's
// does; FromSeq's, FromRange's and a plain Source's do not), so that
// FeedEntries never does nothing without a word (TestFeedNoneLogged).
func warnNoFeed(st *site, log *slog.Logger) {
	if st.feeds.entries == 0 {
		return
	}
	var none []string
	for _, sec := range st.sections {
		if sec.feed == nil && !sec.latest() {
			none = append(none, strconv.Quote(sec.name))
		}
	}
	if len(none) > 0 {
		log.Warn("sitemap: FeedEntries is set, but these sections have no Atom feed: their Source does not list recent URLs (RecentLister)",
			"sections", strings.Join(none, ", "))
	}
}

// feedEntry is one entry of a feed, its values ready to write.
type feedEntry struct {
	updated time.Time // UTC, to the second
	loc     []byte    // the canonical URI, XML-escaped
	title   string    // the news title, or "" for the loc
}

// feedBuilder builds the Atom feeds, each from one Recent call.
type feedBuilder struct{ *tools }

func (b feedBuilder) build(ctx context.Context, j job) (*entry, effects, error) {
	k := j.key
	sec := b.site.sections[k.sec]
	f := sec.feed
	now := b.now()
	start := time.Now()
	entries, err := b.recent(ctx, sec)
	if err != nil {
		b.rep.timed(k, time.Since(start))
		return nil, effects{}, err
	}
	var body []byte
	for _, e := range entries {
		body = append(body, "<entry><id>"...)
		body = append(body, e.loc...)
		body = append(body, "</id><title>"...)
		if e.title != "" {
			body = xmlenc.AppendEscaped(body, e.title)
		} else {
			body = append(body, e.loc...)
		}
		body = append(body, `</title><link rel="alternate" href="`...)
		body = append(body, e.loc...) // a URI holds no '"' or '<': text and attribute alike
		body = append(body, `"/><updated>`...)
		body = xmlenc.AppendW3CTime(body, e.updated, false)
		body = append(body, "</updated></entry>\n"...)
	}
	var newest time.Time
	if len(entries) > 0 {
		newest = entries[0].updated
	}
	// The clock follows the entries: the header holds it, so it cannot be
	// part of what the clock looks at.
	at, updated, _ := b.clocks.built(k, xxhash.Sum64(body), newest, time.Time{}, now, !j.alone)
	updated = cmp.Or(updated, at, second(now)) // Atom requires one; the last only without a clock
	gz, sum, err := compress(b.site.gzipLevel, func(w io.Writer) error {
		h := make([]byte, 0, len(feedStart)+512)
		h = append(h, feedStart...)
		h = append(h, "<id>"+f.loc+"</id>\n<title>"+f.title+"</title>\n<updated>"...)
		h = xmlenc.AppendW3CTime(h, updated, false)
		h = append(h, "</updated>\n"+`<link rel="self" type="application/atom+xml" href="`+f.loc+`"/>`+"\n"+
			"<author><name>"+b.site.feeds.author+"</name></author>\n"...)
		if _, err := w.Write(h); err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			return err
		}
		_, err := io.WriteString(w, feedEnd)
		return err
	})
	dur := time.Since(start)
	b.rep.timed(k, dur)
	if err != nil {
		return nil, effects{}, err
	}
	b.rep.built(k)
	b.rep.log.Debug("sitemap: built feed", "section", sec.name, "entries", len(entries), "gzip_bytes", len(gz),
		"duration", dur, "clock", at)
	e := newEntry(gz, sum, b.site.gzipLevel, at, now)
	e.unclocked, e.alone = at.IsZero() && !j.alone, j.alone
	return e, effects{}, nil
}

// recent reads the entries of the feed of sec: at most FeedEntries URLs
// from one Recent call, each checked by the location rules, newest first,
// each URL once. A URL that breaks a rule, or has no LastMod, is reported
// (page 0) and skipped, or fails the feed under Strict.
func (b feedBuilder) recent(ctx context.Context, sec *section) ([]feedEntry, error) {
	var entries []feedEntry
	urls := b.rep.urls(sec, feedKey(sec.index))
	defer urls.done()
	read := 0
	max := b.site.feeds.entries
	for u, err := range sec.feed.src.Recent(ctx, max) {
		if err != nil {
			return nil, fmt.Errorf("reading recent URLs: %w", err)
		}
		if read++; read > max {
			break // the Source yields more than it was asked for
		}
		if read%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := newFeedEntry(&u, b.site.base.url)
		if err != nil {
			urls.rejected(u.Loc, err)
			if b.site.strict {
				return nil, err
			}
			continue
		}
		entries = append(entries, e)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Newest first, whatever the Source did; a URL listed twice keeps its
	// newest entry.
	slices.SortStableFunc(entries, func(a, b feedEntry) int { return b.updated.Compare(a.updated) })
	seen := make(map[string]bool, len(entries))
	return slices.DeleteFunc(entries, func(e feedEntry) bool {
		dup := seen[string(e.loc)]
		seen[string(e.loc)] = true
		return dup
	}), nil
}

// newFeedEntry checks u, a URL of the site whose base URL is base, and
// makes its entry.
func newFeedEntry(u *URL, base string) (feedEntry, error) {
	switch {
	case u.LastMod.IsZero():
		return feedEntry{}, xmlenc.Invalid(u, "lastmod", xmlenc.ErrRequired)
	case !xmlenc.ValidYear(u.LastMod):
		return feedEntry{}, xmlenc.Invalid(u, "lastmod", xmlenc.ErrYear)
	}
	loc, err := xmlenc.AppendPageURI(nil, u.Loc, base, true)
	if err != nil {
		return feedEntry{}, xmlenc.Invalid(u, "loc", err)
	}
	e := feedEntry{updated: second(u.LastMod), loc: loc}
	if u.News != nil {
		e.title = u.News.Title
	}
	return e, nil
}
