package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
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
	feedStart = xmlHeader + `<feed xmlns="` + nsAtom + `">` + "\n"
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
func newFeedConfig(base string, entries int, author string) (feedConfig, error) {
	author = strings.TrimSpace(author)
	if author == "" {
		host := base[strings.Index(base, "://")+len("://"):]
		author = host[:strings.IndexByte(host, '/')]
	}
	if strings.ContainsAny(author, "\r\n") {
		return feedConfig{}, errors.New("sitemap: FeedAuthor has a line break")
	}
	return feedConfig{entries: entries, author: string(appendEscaped(nil, author)), base: base}, nil
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

// feedSection is the pageKey.sec of the feed of section i: -2 - i, below
// indexSection, so that a feed never shares a key with a page or the
// index. It is its own inverse: feedSection(feedSection(i)) == i.
func feedSection(i int) int { return -2 - i }

// feedKey is the cache key of the feed of sec.
func feedKey(sec *section) pageKey { return pageKey{sec: feedSection(sec.index)} }

// feedEntry is one entry of a feed, its values ready to write.
type feedEntry struct {
	updated time.Time // UTC, to the second
	loc     []byte    // the canonical URI, XML-escaped
	title   string    // the news title, or "" for the loc
}

// buildFeed builds the feed k from one Recent call.
func (s *Sitemap) buildFeed(ctx context.Context, k pageKey) (*entry, error) {
	sec := s.sections[feedSection(k.sec)]
	f := sec.feed
	now := s.now()
	start := time.Now()
	entries, err := s.recent(ctx, sec)
	if err != nil {
		s.timed(k, time.Since(start))
		return nil, fmt.Errorf("sitemap: building %s: %w", f.name, err)
	}
	var body []byte
	for _, e := range entries {
		body = append(body, "<entry><id>"...)
		body = append(body, e.loc...)
		body = append(body, "</id><title>"...)
		if e.title != "" {
			body = appendEscaped(body, e.title)
		} else {
			body = append(body, e.loc...)
		}
		body = append(body, `</title><link rel="alternate" href="`...)
		body = append(body, e.loc...) // a URI holds no '"' or '<': text and attribute alike
		body = append(body, `"/><updated>`...)
		body = appendW3CTime(body, e.updated, false)
		body = append(body, "</updated></entry>\n"...)
	}
	var newest time.Time
	if len(entries) > 0 {
		newest = entries[0].updated
	}
	// The clock follows the entries: the header holds it, so it cannot be
	// part of what the clock looks at.
	at, _ := s.clocks.built(k, xxhash.Sum64(body), newest, now)
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) error {
		b := make([]byte, 0, len(feedStart)+512)
		b = append(b, feedStart...)
		b = append(b, "<id>"+f.loc+"</id>\n<title>"+f.title+"</title>\n<updated>"...)
		b = appendW3CTime(b, at, false)
		b = append(b, "</updated>\n"+`<link rel="self" type="application/atom+xml" href="`+f.loc+`"/>`+"\n"+
			"<author><name>"+s.feeds.author+"</name></author>\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			return err
		}
		_, err := io.WriteString(w, feedEnd)
		return err
	})
	dur := time.Since(start)
	s.timed(k, dur)
	if err != nil {
		return nil, fmt.Errorf("sitemap: building %s: %w", f.name, err)
	}
	s.built(k)
	s.log.Debug("sitemap: built feed", "section", sec.name, "entries", len(entries), "gzip_bytes", len(gz),
		"duration", dur, "clock", at)
	return newEntry(gz, sum, s.gzipLevel, at, now), nil
}

// recent reads the entries of the feed of sec: at most FeedEntries URLs
// from one Recent call, each checked by the location rules, newest first,
// each URL once. A URL that breaks a rule, or has no LastMod, is reported
// (page 0) and skipped, or fails the feed under Strict.
func (s *Sitemap) recent(ctx context.Context, sec *section) ([]feedEntry, error) {
	var entries []feedEntry
	read := 0
	for u, err := range sec.feed.src.Recent(ctx, s.feeds.entries) {
		if err != nil {
			return nil, fmt.Errorf("reading recent URLs: %w", err)
		}
		if read++; read > s.feeds.entries {
			break // the Source yields more than it was asked for
		}
		if read%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := s.feedEntry(&u)
		if err != nil {
			s.reject(sec, feedKey(sec), u.Loc, err)
			if s.strict {
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

// feedEntry checks u and makes its entry.
func (s *Sitemap) feedEntry(u *URL) (feedEntry, error) {
	switch {
	case u.LastMod.IsZero():
		return feedEntry{}, invalid(u, "lastmod", errRequired)
	case !validYear(u.LastMod):
		return feedEntry{}, invalid(u, "lastmod", errYear)
	}
	loc, err := appendPageURI(nil, u.Loc, s.base, true)
	if err != nil {
		return feedEntry{}, invalid(u, "loc", err)
	}
	e := feedEntry{updated: second(u.LastMod), loc: loc}
	if u.News != nil {
		e.title = u.News.Title
	}
	return e, nil
}

// outdateFeed says that the feed of sec, if it has one, may have changed
// (Invalidate): a cached copy is served while it is rebuilt, on its next
// request, and a failed build may be retried at once.
func (s *Sitemap) outdateFeed(sec *section) {
	if sec.feed == nil {
		return
	}
	k := feedKey(sec)
	s.outdate(k)
	s.failures.forget(k)
}
