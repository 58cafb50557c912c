package sitemap

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
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
		{name: "no name", u: n(func(n *News) { n.PublicationName = "" }), field: "news.publication.name", err: xmlenc.ErrRequired},
		{name: "blank name", u: n(func(n *News) { n.PublicationName = "  " }), field: "news.publication.name", err: xmlenc.ErrRequired},
		{name: "no date", u: n(func(n *News) { n.PublicationDate = time.Time{} }), field: "news.publication_date", err: xmlenc.ErrRequired},
		{name: "date year 10000", u: n(func(n *News) { n.PublicationDate = day(10000, 1, 1) }), field: "news.publication_date", err: xmlenc.ErrYear},
		{name: "no title", u: n(func(n *News) { n.Title = "" }), field: "news.title", err: xmlenc.ErrRequired},

		// the last two days before testNow, and at most five minutes after
		{name: "two days old", u: n(func(n *News) { n.PublicationDate = testNow.Add(-48 * time.Hour) }),
			want: "<news:publication_date>2024-05-31T12:00:00Z</news:publication_date>"},
		{name: "two days and a second old", u: n(func(n *News) { n.PublicationDate = testNow.Add(-48*time.Hour - time.Second) }),
			field: "news.publication_date", err: xmlenc.ErrNewsTooOld},
		{name: "a year old", u: n(func(n *News) { n.PublicationDate = day(2023, 6, 1) }), field: "news.publication_date", err: xmlenc.ErrNewsTooOld},
		{name: "two days old in another zone", u: n(func(n *News) {
			n.PublicationDate = testNow.Add(-48 * time.Hour).In(time.FixedZone("+05:30", 5*3600+1800))
		}), want: "<news:publication_date>2024-05-31T12:00:00Z</news:publication_date>"},
		{name: "now", u: n(func(n *News) { n.PublicationDate = testNow }), want: "<news:publication_date>2024-06-02T12:00:00Z</news:publication_date>"},
		{name: "five minutes ahead", u: n(func(n *News) { n.PublicationDate = testNow.Add(5 * time.Minute) }),
			want: "<news:publication_date>2024-06-02T12:05:00Z</news:publication_date>"},
		{name: "five minutes and a second ahead", u: n(func(n *News) { n.PublicationDate = testNow.Add(5*time.Minute + time.Second) }),
			field: "news.publication_date", err: xmlenc.ErrNewsFuture},
		{name: "tomorrow", u: n(func(n *News) { n.PublicationDate = testNow.Add(24 * time.Hour) }), field: "news.publication_date", err: xmlenc.ErrNewsFuture},

		// language: ISO 639, two or three lower-case letters, or zh-cn / zh-tw
		{name: "language de", u: n(func(n *News) { n.Language = "de" }), want: "<news:language>de</news:language>"},
		{name: "language haw", u: n(func(n *News) { n.Language = "haw" }), want: "<news:language>haw</news:language>"},
		{name: "language zh-cn", u: n(func(n *News) { n.Language = "zh-cn" }), want: "<news:language>zh-cn</news:language>"},
		{name: "language zh-tw", u: n(func(n *News) { n.Language = "zh-tw" }), want: "<news:language>zh-tw</news:language>"},
		{name: "no language", u: n(func(n *News) { n.Language = "" }), field: "news.publication.language", err: xmlenc.ErrValue},
		{name: "language EN", u: n(func(n *News) { n.Language = "EN" }), field: "news.publication.language", err: xmlenc.ErrValue},
		{name: "language e", u: n(func(n *News) { n.Language = "e" }), field: "news.publication.language", err: xmlenc.ErrValue},
		{name: "language english", u: n(func(n *News) { n.Language = "english" }), field: "news.publication.language", err: xmlenc.ErrValue},
		{name: "language de-DE", u: n(func(n *News) { n.Language = "de-DE" }), field: "news.publication.language", err: xmlenc.ErrValue},
		{name: "language zh-hk", u: n(func(n *News) { n.Language = "zh-hk" }), field: "news.publication.language", err: xmlenc.ErrValue},

		// genres
		{name: "every genre", u: n(func(n *News) {
			n.Genres = []string{"PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated"}
		}),
			want: "<news:genres>PressRelease, Satire, Blog, OpEd, Opinion, UserGenerated</news:genres>"},
		{name: "genre News", u: n(func(n *News) { n.Genres = []string{"Blog", "News"} }), field: "news.genres", err: xmlenc.ErrValue},
		{name: "genre lower-case", u: n(func(n *News) { n.Genres = []string{"blog"} }), field: "news.genres", err: xmlenc.ErrValue},

		// stock tickers: at most 5, EXCHANGE:SYMBOL
		{name: "5 tickers", u: n(func(n *News) { n.StockTickers = []string{"NYSE:A", "NYSE:B", "NYSE:C", "NYSE:D", "NYSE:E"} }),
			want: "<news:stock_tickers>NYSE:A, NYSE:B, NYSE:C, NYSE:D, NYSE:E</news:stock_tickers>"},
		{name: "6 tickers", u: n(func(n *News) { n.StockTickers = []string{"NYSE:A", "NYSE:B", "NYSE:C", "NYSE:D", "NYSE:E", "NYSE:F"} }), field: "news.stock_tickers", err: xmlenc.ErrTooMany},
		{name: "ticker without exchange", u: n(func(n *News) { n.StockTickers = []string{"AMAT"} }), field: "news.stock_tickers", err: xmlenc.ErrValue},
		{name: "ticker with underscore", u: n(func(n *News) { n.StockTickers = []string{"NYSE:BRK_B"} }), field: "news.stock_tickers", err: xmlenc.ErrValue},
		{name: "ticker with space", u: n(func(n *News) { n.StockTickers = []string{"NYSE: A"} }), field: "news.stock_tickers", err: xmlenc.ErrValue},
		{name: "ticker empty", u: n(func(n *News) { n.StockTickers = []string{""} }), field: "news.stock_tickers", err: xmlenc.ErrValue},
	})
}

// TestNewsAge: the age rule follows the build time, NewsAnyAge turns it
// off (but not the rule on future dates), and a zero time checks no date.
func TestNewsAge(t *testing.T) {
	old := newsURL(func(n *News) { n.PublicationDate = testNow.Add(-72 * time.Hour) })
	future := newsURL(func(n *News) { n.PublicationDate = testNow.Add(time.Hour) })
	future.Loc += "?future"
	for _, tc := range []struct {
		name     string
		spec     pageSpec
		rejected []error // of old, then future; nil if written
	}{
		{"default", pageSpec{now: testNow}, []error{xmlenc.ErrNewsTooOld, xmlenc.ErrNewsFuture}},
		{"any age", pageSpec{now: testNow, newsAnyAge: true}, []error{nil, xmlenc.ErrNewsFuture}},
		{"three days later", pageSpec{now: testNow.Add(72 * time.Hour)}, []error{xmlenc.ErrNewsTooOld, xmlenc.ErrNewsTooOld}},
		{"no clock", pageSpec{}, []error{nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.base, tc.spec.ext = testBase, ExtNews
			r := encodeSpec(t, listSource(URL{Loc: anchorLoc}, old, future), tc.spec)
			if r.err != nil {
				t.Fatal(r.err)
			}
			var want []rejection
			for i, u := range []URL{old, future} {
				if tc.rejected[i] != nil {
					want = append(want, rejection{u.Loc, tc.rejected[i]})
				}
			}
			if len(r.rejected) != len(want) || r.st.urls != 3-len(want) {
				t.Fatalf("rejected %v, %d written; want %v", r.rejected, r.st.urls, want)
			}
			for i, w := range want {
				var bad *InvalidURLError
				if got := r.rejected[i]; got.loc != w.loc || !errors.Is(got.err, w.err) || !errors.As(got.err, &bad) || bad.Field != "news.publication_date" {
					t.Errorf("rejection %d: %v, want %v on news.publication_date", i, got, w)
				}
			}
			xsdcheck.URLSet(t, r.doc)
		})
	}
}

// TestNewsAgeServed: a news section is dated by the build time of
// Config.Now; an old article is skipped and reported like every rejected
// URL, and NewsAnyAge writes it.
func TestNewsAgeServed(t *testing.T) {
	fresh := newsURL(nil)
	old := newsURL(func(n *News) { n.PublicationDate = testNow.Add(-49 * time.Hour) })
	old.Loc = testBase + "business/old.html"
	for _, anyAge := range []bool{false, true} {
		t.Run(fmt.Sprint("NewsAnyAge=", anyAge), func(t *testing.T) {
			var reports []error
			var logs testkit.SyncBuffer
			sm := newTestSitemap(t, Config{Now: func() time.Time { return testNow }, NewsAnyAge: anyAge,
				Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				OnReject: func(section string, page int64, loc string, err error) {
					if section != "news" || page != 1 || loc != old.Loc {
						t.Errorf("OnReject(%q, %d, %q)", section, page, loc)
					}
					reports = append(reports, err)
				}},
				Section{Name: "news", Source: FromSlice([]URL{fresh, old}, 1000), Extensions: ExtNews})
			w := get(sm, "/sitemap-news-1.xml")
			if w.Code != 200 {
				t.Fatalf("status %d", w.Code)
			}
			written := strings.Contains(w.Body.String(), "<loc>"+old.Loc+"</loc>")
			if anyAge {
				if !written || len(reports) != 0 || sm.Stats().RejectedURLs != 0 {
					t.Errorf("NewsAnyAge: old article written %v, reports %v", written, reports)
				}
			} else {
				var bad *InvalidURLError
				if written || len(reports) != 1 || !errors.Is(reports[0], xmlenc.ErrNewsTooOld) || !errors.As(reports[0], &bad) ||
					bad.Field != "news.publication_date" || sm.Stats().RejectedURLs != 1 {
					t.Errorf("old article written %v, reports %v, stats %+v", written, reports, sm.Stats())
				}
				if !strings.Contains(logs.String(), "older than two days") {
					t.Errorf("log lacks the rejection:\n%s", logs.String())
				}
			}
			xsdcheck.URLSet(t, w.Body.Bytes())
		})
	}
}
