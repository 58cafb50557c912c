// Package atomfeed writes an Atom 1.0 feed (RFC 4287) of a site's most
// recently changed URLs, as a sitemap serves it: the URLs checked by the
// sitemap's location rules, newest first, each once.
//
// What a feed holds:
//
//   - The feed's id and its self link are the feed's own URL; its title
//     is given; its author is given (a host when nothing else); its
//     updated is given (the caller's content clock, which follows the
//     entries).
//   - One entry per URL, newest first: id and link the URL in the
//     sitemap's canonical form (the same location rules as a page, so a
//     feed never holds a URL the sitemap would refuse), title the news
//     title if the URL has one and the URL otherwise, updated its LastMod
//     in RFC 3339, in UTC to the second. A URL without LastMod is refused
//     (Atom requires updated), as is a URL that breaks a location rule; a
//     URL listed twice keeps its newest entry. A feed with no entry is
//     still a valid feed.
package atomfeed

import (
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/urlset"
)

const (
	// NS is Atom 1.0's namespace.
	NS = "http://www.w3.org/2005/Atom"
	// Start opens a feed; Head follows it.
	Start = xmlenc.XMLHeader + `<feed xmlns="` + NS + `">` + "\n"
	// End closes a feed.
	End = "</feed>\n"
)

// Author returns the feed author's name as written, XML-escaped: name
// trimmed, or host if that is empty. A name with a line break is an
// error.
func Author(name, host string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = host
	}
	if strings.ContainsAny(name, "\r\n") {
		return "", errors.New("FeedAuthor has a line break")
	}
	return string(xmlenc.AppendEscaped(nil, name)), nil
}

// Entry is one entry of a feed, its values ready to write.
type Entry struct {
	Updated time.Time // UTC, to the second
	Loc     []byte    // the canonical URI, XML-escaped
	Title   string    // the news title, or "" for the loc
}

// NewEntry checks u, a URL of the site whose canonical base URL is base,
// and makes its entry; an error is the *urlset.InvalidURLError of the
// field that breaks a rule.
func NewEntry(u *urlset.URL, base string) (Entry, error) {
	switch {
	case u.LastMod.IsZero():
		return Entry{}, xmlenc.Invalid(u, "lastmod", xmlenc.ErrRequired)
	case !xmlenc.ValidYear(u.LastMod):
		return Entry{}, xmlenc.Invalid(u, "lastmod", xmlenc.ErrYear)
	}
	loc, err := xmlenc.AppendPageURI(nil, u.Loc, base, true)
	if err != nil {
		return Entry{}, xmlenc.Invalid(u, "loc", err)
	}
	e := Entry{Updated: u.LastMod.UTC().Truncate(time.Second), Loc: loc}
	if u.News != nil {
		e.Title = u.News.Title
	}
	return e, nil
}

// Order puts entries newest first, whatever order they came in (stable
// for equal times), and keeps the newest entry of a URL listed twice.
func Order(entries []Entry) []Entry {
	slices.SortStableFunc(entries, func(a, b Entry) int { return b.Updated.Compare(a.Updated) })
	seen := make(map[string]bool, len(entries))
	return slices.DeleteFunc(entries, func(e Entry) bool {
		dup := seen[string(e.Loc)]
		seen[string(e.Loc)] = true
		return dup
	})
}

// AppendEntries appends the entries' elements to b, one a line.
func AppendEntries(b []byte, entries []Entry) []byte {
	for _, e := range entries {
		b = append(b, "<entry><id>"...)
		b = append(b, e.Loc...)
		b = append(b, "</id><title>"...)
		if e.Title != "" {
			b = xmlenc.AppendEscaped(b, e.Title)
		} else {
			b = append(b, e.Loc...)
		}
		b = append(b, `</title><link rel="alternate" href="`...)
		b = append(b, e.Loc...) // a URI holds no '"' or '<': text and attribute alike
		b = append(b, `"/><updated>`...)
		b = xmlenc.AppendW3CTime(b, e.Updated, false)
		b = append(b, "</updated></entry>\n"...)
	}
	return b
}

// AppendHead appends Start and the feed's own elements to b: loc is its
// URL (its id and self link) and title its title, both XML-safe; updated
// its updated; author as Author returned it.
func AppendHead(b []byte, loc, title string, updated time.Time, author string) []byte {
	b = append(b, Start...)
	b = append(b, "<id>"+loc+"</id>\n<title>"+title+"</title>\n<updated>"...)
	b = xmlenc.AppendW3CTime(b, updated, false)
	return append(b, "</updated>\n"+`<link rel="self" type="application/atom+xml" href="`+loc+`"/>`+"\n"+
		"<author><name>"+author+"</name></author>\n"...)
}

// Write writes a whole feed to w: its head (AppendHead's arguments), the
// entries' elements as AppendEntries wrote them, and End.
func Write(w io.Writer, loc, title string, updated time.Time, author string, entries []byte) error {
	if _, err := w.Write(AppendHead(make([]byte, 0, len(Start)+512), loc, title, updated, author)); err != nil {
		return err
	}
	if _, err := w.Write(entries); err != nil {
		return err
	}
	_, err := io.WriteString(w, End)
	return err
}
