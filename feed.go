package sitemap

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/atomfeed"
)

// The Atom 1.0 feeds (RFC 4287): with Config.FeedEntries set, each section
// whose Source implements RecentLister has a feed of its most recently
// changed URLs at sitemap-NAME.atom (sitemap.atom for an unnamed section),
// which robots.txt names, since search engines read Atom feeds as
// sitemaps. A feed is a document like a page: built on request from one
// Recent call, cached under its own key for TTL, built once however many
// ask, its failures remembered for RetryAfter. Its bytes are written by
// internal/atomfeed, which says what a feed holds; its updated is its
// content clock (clock.go), which is also its Last-Modified: the newest
// entry's updated, moved forward whenever the entries change otherwise (a
// URL that leaves the feed).

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
	author, err := atomfeed.Author(author, base.host)
	if err != nil {
		return feedConfig{}, err
	}
	return feedConfig{entries: entries, author: author, base: base.url}, nil
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
	body := atomfeed.AppendEntries(nil, entries)
	var newest time.Time
	if len(entries) > 0 {
		newest = entries[0].Updated
	}
	// The clock follows the entries: the header holds it, so it cannot be
	// part of what the clock looks at.
	at, updated, _ := b.clocks.built(k, xxhash.Sum64(body), newest, time.Time{}, now, !j.alone, false)
	updated = cmp.Or(updated, at, second(now)) // Atom requires one; the last only without a clock
	gz, sum, err := compress(b.site.gzipLevel, func(w io.Writer) error {
		return atomfeed.Write(w, f.loc, f.title, updated, b.site.feeds.author, body)
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
func (b feedBuilder) recent(ctx context.Context, sec *section) ([]atomfeed.Entry, error) {
	var entries []atomfeed.Entry
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
		e, err := atomfeed.NewEntry(&u, b.site.base.url)
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
	return atomfeed.Order(entries), nil // newest first, each URL once
}
