package sitemap

import (
	"testing"
	"time"
)

// newsURL is a URL with a valid news article that mod may change.
func newsURL(mod func(*News)) URL {
	n := News{
		PublicationName: "The Example Times",
		Language:        "en",
		PublicationDate: time.Date(2024, 6, 1, 8, 30, 0, 0, time.UTC),
		Title:           "Companies A, B in merger talks",
	}
	if mod != nil {
		mod(&n)
	}
	return URL{Loc: testBase + "business/article55.html", News: &n}
}

func TestNewsRules(t *testing.T) {
	n := newsURL
	runRules(t, []ruleCase{
		{name: "minimal", u: n(nil), want: "<news:news><news:publication><news:name>The Example Times</news:name><news:language>en</news:language></news:publication>" +
			"<news:publication_date>2024-06-01T08:30:00Z</news:publication_date><news:title>Companies A, B in merger talks</news:title></news:news>"},
		{name: "every field in schema order", u: n(func(n *News) {
			n.Genres = []string{"PressRelease", "Blog"}
			n.Keywords = []string{"business", "merger & acquisition"}
			n.StockTickers = []string{"NASDAQ:A", "NASDAQ:B"}
		}), want: "</news:publication><news:genres>PressRelease, Blog</news:genres><news:publication_date>2024-06-01T08:30:00Z</news:publication_date>" +
			"<news:title>Companies A, B in merger talks</news:title><news:keywords>business, merger &amp; acquisition</news:keywords>" +
			"<news:stock_tickers>NASDAQ:A, NASDAQ:B</news:stock_tickers></news:news>"},
		{name: "escaped name and title", u: n(func(n *News) { n.PublicationName, n.Title = "A & B's <News>", `"Quoted"` }),
			want: "<news:name>A &amp; B&apos;s &lt;News&gt;</news:name>"},

		// required fields
		{name: "no name", u: n(func(n *News) { n.PublicationName = "" }), field: "news.publication.name", err: errRequired},
		{name: "blank name", u: n(func(n *News) { n.PublicationName = "  " }), field: "news.publication.name", err: errRequired},
		{name: "no date", u: n(func(n *News) { n.PublicationDate = time.Time{} }), field: "news.publication_date", err: errRequired},
		{name: "date year 10000", u: n(func(n *News) { n.PublicationDate = day(10000, 1, 1) }), field: "news.publication_date", err: errYear},
		{name: "no title", u: n(func(n *News) { n.Title = "" }), field: "news.title", err: errRequired},

		// language: ISO 639, two or three lower-case letters, or zh-cn / zh-tw
		{name: "language de", u: n(func(n *News) { n.Language = "de" }), want: "<news:language>de</news:language>"},
		{name: "language haw", u: n(func(n *News) { n.Language = "haw" }), want: "<news:language>haw</news:language>"},
		{name: "language zh-cn", u: n(func(n *News) { n.Language = "zh-cn" }), want: "<news:language>zh-cn</news:language>"},
		{name: "language zh-tw", u: n(func(n *News) { n.Language = "zh-tw" }), want: "<news:language>zh-tw</news:language>"},
		{name: "no language", u: n(func(n *News) { n.Language = "" }), field: "news.publication.language", err: errValue},
		{name: "language EN", u: n(func(n *News) { n.Language = "EN" }), field: "news.publication.language", err: errValue},
		{name: "language e", u: n(func(n *News) { n.Language = "e" }), field: "news.publication.language", err: errValue},
		{name: "language english", u: n(func(n *News) { n.Language = "english" }), field: "news.publication.language", err: errValue},
		{name: "language de-DE", u: n(func(n *News) { n.Language = "de-DE" }), field: "news.publication.language", err: errValue},
		{name: "language zh-hk", u: n(func(n *News) { n.Language = "zh-hk" }), field: "news.publication.language", err: errValue},

		// genres
		{name: "every genre", u: n(func(n *News) {
			n.Genres = []string{"PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated"}
		}),
			want: "<news:genres>PressRelease, Satire, Blog, OpEd, Opinion, UserGenerated</news:genres>"},
		{name: "genre News", u: n(func(n *News) { n.Genres = []string{"Blog", "News"} }), field: "news.genres", err: errValue},
		{name: "genre lower-case", u: n(func(n *News) { n.Genres = []string{"blog"} }), field: "news.genres", err: errValue},

		// stock tickers: at most 5, EXCHANGE:SYMBOL
		{name: "5 tickers", u: n(func(n *News) { n.StockTickers = []string{"NYSE:A", "NYSE:B", "NYSE:C", "NYSE:D", "NYSE:E"} }),
			want: "<news:stock_tickers>NYSE:A, NYSE:B, NYSE:C, NYSE:D, NYSE:E</news:stock_tickers>"},
		{name: "6 tickers", u: n(func(n *News) { n.StockTickers = []string{"NYSE:A", "NYSE:B", "NYSE:C", "NYSE:D", "NYSE:E", "NYSE:F"} }), field: "news.stock_tickers", err: errTooMany},
		{name: "ticker without exchange", u: n(func(n *News) { n.StockTickers = []string{"AMAT"} }), field: "news.stock_tickers", err: errValue},
		{name: "ticker with underscore", u: n(func(n *News) { n.StockTickers = []string{"NYSE:BRK_B"} }), field: "news.stock_tickers", err: errValue},
		{name: "ticker with space", u: n(func(n *News) { n.StockTickers = []string{"NYSE: A"} }), field: "news.stock_tickers", err: errValue},
		{name: "ticker empty", u: n(func(n *News) { n.StockTickers = []string{""} }), field: "news.stock_tickers", err: errValue},
	})
}
