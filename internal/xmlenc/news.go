package xmlenc

import (
	"errors"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/limits"
	"github.com/freshmap/sitemap/urlset"
)

// A news sitemap holds only articles published in the last two days. An
// article dated a little after the build time is accepted, for the clocks
// of the database and the server may differ; one dated later is not
// published yet.
const (
	MaxNewsAge  = 48 * time.Hour
	MaxNewsSkew = 5 * time.Minute
)

// Rules of the news publication date, wrapped in an *InvalidURLError.
var (
	ErrNewsTooOld = errors.New("older than two days")
	ErrNewsFuture = errors.New("more than five minutes in the future")
)

// appendNews writes a <news:news> element of an article published within
// two days before e.Now (unless e.NewsAnyAge) and at most five minutes
// after it. Its order follows the schema:
// publication (name, language), genres, publication_date, title, keywords,
// stock_tickers.
//
// A news element that breaks a rule skips its URL (an *InvalidURLError):
// the article is why the URL is in a news sitemap, which lists only the
// articles of the last two days, so an old article must leave the file,
// not stay in it as a plain URL. In a section that does not declare news,
// the element is dropped as undeclared and the URL written.
func (e *Encoder) appendNews(b []byte, u *urlset.URL, n *urlset.News) ([]byte, error) {
	switch {
	case e.ext&urlset.ExtNews == 0:
		e.drop(Invalid(u, "news", ErrUndeclared), "news:news")
		return b, nil
	case strings.TrimSpace(n.PublicationName) == "":
		return b, Invalid(u, "news.publication.name", ErrRequired)
	case !isNewsLanguage(n.Language):
		return b, Invalid(u, "news.publication.language", ErrValue)
	case n.PublicationDate.IsZero():
		return b, Invalid(u, "news.publication_date", ErrRequired)
	case !ValidYear(n.PublicationDate):
		return b, Invalid(u, "news.publication_date", ErrYear)
	case !e.Now.IsZero() && n.PublicationDate.After(e.Now.Add(MaxNewsSkew)):
		return b, Invalid(u, "news.publication_date", ErrNewsFuture)
	case !e.Now.IsZero() && !e.NewsAnyAge && n.PublicationDate.Before(e.Now.Add(-MaxNewsAge)):
		return b, Invalid(u, "news.publication_date", ErrNewsTooOld)
	case strings.TrimSpace(n.Title) == "":
		return b, Invalid(u, "news.title", ErrRequired)
	case len(n.StockTickers) > limits.StockTickers:
		return b, Invalid(u, "news.stock_tickers", ErrTooMany)
	}
	for _, g := range n.Genres {
		switch g {
		case "PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated":
		default:
			return b, Invalid(u, "news.genres", ErrValue)
		}
	}
	for _, t := range n.StockTickers {
		if !isTicker(t) {
			return b, Invalid(u, "news.stock_tickers", ErrValue)
		}
	}
	b = append(b, "<news:news><news:publication>"...)
	b = appendElem(b, "news:name", n.PublicationName)
	b = appendElem(b, "news:language", n.Language)
	b = append(b, "</news:publication>"...)
	b = appendList(b, "news:genres", n.Genres, false)
	b = appendTimeElem(b, "news:publication_date", n.PublicationDate)
	b = appendElem(b, "news:title", n.Title)
	b = appendList(b, "news:keywords", n.Keywords, true)
	b = appendList(b, "news:stock_tickers", n.StockTickers, false)
	return append(b, "</news:news>"...), nil
}

// appendList writes the items comma-separated, or nothing if there are none.
func appendList(b []byte, name string, items []string, escape bool) []byte {
	if len(items) == 0 {
		return b
	}
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	for i, it := range items {
		if i > 0 {
			b = append(b, ", "...)
		}
		if escape {
			b = AppendEscaped(b, it)
		} else {
			b = append(b, it...)
		}
	}
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// isNewsLanguage accepts what the news schema does: an ISO 639 code of two
// or three lower-case letters, or zh-cn or zh-tw.
func isNewsLanguage(s string) bool {
	if s == "zh-cn" || s == "zh-tw" {
		return true
	}
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// isTicker accepts EXCHANGE:SYMBOL made of ASCII letters and digits. The
// schema's \w would allow other letters too, but not '_' (a punctuation
// character to XML Schema).
func isTicker(s string) bool {
	ex, sym, ok := strings.Cut(s, ":")
	return ok && isWord(ex) && isWord(sym)
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
