package sitemap

import (
	"context"
	"iter"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// Section.Latest: a section served at one fixed URL, sitemap-NAME-1.xml.gz,
// from its Source's most recently changed URLs (RecentLister), instead of
// paged by its Source's Pages. This is what a news sitemap wants: Google
// asks to keep updating the same news sitemap rather than to make new
// ones, and a file numbered by key range moves to a new number as
// articles arrive, so the URL submitted to a search console goes dead.
//
// The rules, each held by a test:
//
//  1. The section has exactly one file, page 1, which the index always
//     lists, whatever the Source holds (TestLatestEmptyListed). Any other
//     page number is 404 (TestLatestOnePage).
//  2. The file holds the URLs of one Recent(ctx, PageSize) call, in the
//     order Recent yields them: newest first (TestLatestNewest), so a
//     news section holds the newest 1,000 articles. The name stays the
//     same as articles arrive (TestLatestStableName).
//  3. An empty file is an empty <urlset> with its namespaces, served with
//     200 (TestLatestEmptyListed). That is the one place the output
//     departs from the sitemap schema, which wants at least one <url>
//     (TestLatestEmptySchema); Google's news guidance allows it, and the
//     checker (check/) warns on it rather than fail.
//  4. In a news section, an article older than two days (unless
//     Config.NewsAnyAge) is left out without a report: the newest URLs
//     include such articles as a matter of course, and they age out
//     (TestLatestAgedOutQuiet). Every other rule is a page's.
//  5. Invalidate with any page number of the section (as
//     adapters/sqlsource's Watch gives the page of a row) names its one
//     file (TestLatestInvalidate).
//  6. Clocks, ETags, 304s, the Store and the purge hook treat the file
//     as any other page.
//
// latest is the Source the section is served from: it wraps the
// RecentLister the application gave.
type latest struct {
	src  RecentLister
	size int // the most URLs the file holds: the section's page size
	// cutoff, if set, is the publication date before which a news
	// article is left out (rule 4); a build sets it (at).
	cutoff time.Time
}

// at returns l for a build at now of a section whose page spec is spec:
// with the two-day cutoff of news articles, where it applies.
func (l latest) at(now time.Time, spec *pageSpec) latest {
	if spec.ext&ExtNews != 0 && !spec.newsAnyAge && !now.IsZero() {
		l.cutoff = now.Add(-xmlenc.MaxNewsAge)
	}
	return l
}

// Pages reports page 1, always, and reads nothing (rule 1): what the
// file holds is known only by building it, and its clock is that of its
// bytes.
func (l latest) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1}, nil) }
}

// URLs yields the URLs of one Recent call for page 1 (rule 2), less the
// news articles past the cutoff (rule 4), and nothing for any other page.
func (l latest) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		if page != 1 {
			return
		}
		read := 0
		for u, err := range l.src.Recent(ctx, l.size) {
			if err != nil {
				yield(URL{}, err)
				return
			}
			if read++; read > l.size {
				return // the Source yields more than it was asked for, as a feed reads it
			}
			if !l.cutoff.IsZero() && u.News != nil && !u.News.PublicationDate.IsZero() && u.News.PublicationDate.Before(l.cutoff) {
				continue
			}
			if !yield(u, nil) {
				return
			}
		}
	}
}

// Recent implements RecentLister, so that the section's Atom feed reads
// the application's Source.
func (l latest) Recent(ctx context.Context, n int) iter.Seq2[URL, error] { return l.src.Recent(ctx, n) }

// PageSize implements PageSizer.
func (l latest) PageSize() int { return l.size }

// latest reports whether sec is served by Section.Latest.
func (sec *section) latest() bool {
	_, ok := sec.src.(latest)
	return ok
}
