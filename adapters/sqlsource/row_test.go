package sqlsource_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// article is one row of the news table that TestAnnotate reads.
type article struct {
	id        int64
	slug      string
	title     string
	lang      string
	published time.Time
	priority  *float64 // nil stores NULL
	freq      string   // "" stores NULL
}

// articles returns n articles with every kind of value: text to escape,
// three languages, NULL and non-NULL priorities and changefreqs.
func articles(n int) []article {
	as := make([]article, n)
	langs := []string{"en", "de", "zh-cn"}
	for i := range as {
		id := int64(i + 1)
		a := article{id: id, slug: "story-" + strconv.FormatInt(id, 10), title: "Bäder & Öfen <" + strconv.FormatInt(id, 10) + ">",
			lang: langs[i%3], published: t0.Add(time.Duration(id) * time.Hour), freq: "daily"}
		if id%3 != 0 {
			a.priority = new(float64(id%10) / 10)
		}
		if id%4 == 0 {
			a.freq = ""
		}
		as[i] = a
	}
	return as
}

// createArticles creates the news table in d and inserts as. SQLite stores
// the publication time as Unix seconds in even rows and as text in odd
// ones; PostgreSQL gets a fraction of a second, which must be dropped.
func (d *testDB) createArticles(t testing.TB, as []article) string {
	t.Helper()
	tab := d.createTable(t, "articles",
		col("id", "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY"),
		col("slug", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"),
		col("title", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"),
		col("lang", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(16) NOT NULL"),
		col("published_at", "INTEGER", "TIMESTAMPTZ", "DATETIME"),
		col("priority", "REAL", "DOUBLE PRECISION", "DOUBLE"),
		col("freq", "TEXT", "TEXT", "VARCHAR(16)"))
	for _, a := range as {
		var published, priority, freq any = a.published, nil, nil
		switch {
		case d.name == "sqlite" && a.id%2 == 0:
			published = a.published.Unix()
		case d.name == "sqlite":
			published = a.published.Format("2006-01-02 15:04:05")
		case d.name == "postgres":
			published = a.published.Add(700 * time.Millisecond)
		}
		if a.priority != nil {
			priority = *a.priority
		}
		if a.freq != "" {
			freq = a.freq
		}
		d.exec(t, "INSERT INTO "+tab+" VALUES (?, ?, ?, ?, ?, ?, ?)", a.id, a.slug, a.title, a.lang, published, priority, freq)
	}
	return tab
}

const newsBase = "https://news.example.com"

// newsConfig reads the articles of tab as a news sitemap: the loc from a
// path template, and everything else from the row's own columns.
func newsConfig(d *testDB, tab string) sqlsource.Config {
	return sqlsource.Config{
		Table:       tab,
		Key:         "id",
		BaseURL:     newsBase,
		LocTemplate: "/news/{slug}",
		LastMod:     "published_at",
		PageSize:    5,
		Dialect:     d.dialect,
		Columns:     []string{"title", "lang", "published_at", "priority", "freq"},
		Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
			published, err := r.Time("published_at")
			if err != nil {
				return err
			}
			u.News = &sitemap.News{PublicationName: "The Daily", Language: r.String("lang"), PublicationDate: published, Title: r.String("title")}
			if p := r.Bytes("priority"); p != nil {
				f, err := strconv.ParseFloat(string(p), 64)
				if err != nil {
					return err
				}
				u.Priority = &f
			}
			if f := r.Bytes("freq"); f != nil {
				u.ChangeFreq = sitemap.ChangeFreq(f)
			}
			return nil
		},
	}
}

// wantArticles is what newsConfig must read from as, page by page.
func wantArticles(as []article, size int64) map[int64][]sitemap.URL {
	want := map[int64][]sitemap.URL{}
	for _, a := range as {
		u := sitemap.URL{Loc: newsBase + "/news/" + a.slug, LastMod: a.published, Priority: a.priority, ChangeFreq: sitemap.ChangeFreq(a.freq),
			News: &sitemap.News{PublicationName: "The Daily", Language: a.lang, PublicationDate: a.published, Title: a.title}}
		want[a.id/size+1] = append(want[a.id/size+1], u)
	}
	return want
}

// TestAnnotate fills news, priority and changefreq from the row's own
// columns on every database, checks the URLs, then serves them as a news
// sitemap and validates it.
func TestAnnotate(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		as := articles(12)
		tab := d.createArticles(t, as)
		cfg := newsConfig(d, tab)
		annotate := cfg.Annotate
		cfg.Loaders = []sqlsource.Loader{func(context.Context, *sqlsource.Page) (sqlsource.Merge, error) {
			return func(_ int64, u *sitemap.URL) { u.ChangeFreq = sitemap.Weekly }, nil
		}}
		cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
			// Annotate comes after the loc, the lastmod and the Loaders.
			if want := newsBase + "/news/story-" + strconv.FormatInt(r.Key, 10); u.Loc != want || u.ChangeFreq != sitemap.Weekly ||
				!u.LastMod.Equal(r.LastMod) || r.LastMod.IsZero() {
				t.Errorf("key %d: Annotate sees %+v, LastMod %v", r.Key, u, r.LastMod)
			}
			u.ChangeFreq = ""
			return annotate(r, u)
		}
		got := takeSnapshot(t, newSource(t, d.db, cfg))
		want := wantArticles(as, 5)
		if len(got.infos) != len(want) {
			t.Fatalf("%d pages, want %d", len(got.infos), len(want))
		}
		for n, urls := range want {
			if !reflect.DeepEqual(got.urls[n], urls) {
				t.Errorf("page %d:\n got %s\nwant %s", n, show(got.urls[n]), show(urls))
			}
		}

		now := func() time.Time { return as[len(as)-1].published } // every article is from the last two days
		sm, err := sitemap.New(sitemap.Config{BaseURL: newsBase, Strict: true, Now: now},
			sitemap.Section{Name: "news", Source: newSource(t, d.db, newsConfig(d, tab)), Extensions: sitemap.ExtNews})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		srv := httptest.NewServer(sm)
		defer srv.Close()
		var docs []byte
		for _, loc := range locs(t, get(t, srv.URL+"/sitemap_index.xml")) {
			u, err := url.Parse(loc)
			if err != nil {
				t.Fatal(err)
			}
			doc := get(t, srv.URL+u.Path)
			xsdcheck.URLSet(t, doc)
			docs = append(docs, doc...)
		}
		for _, s := range []string{
			"<loc>" + newsBase + "/news/story-1</loc><lastmod>2024-03-01T13:00:00Z</lastmod><changefreq>daily</changefreq><priority>0.1</priority>" +
				"<news:news><news:publication><news:name>The Daily</news:name><news:language>en</news:language></news:publication>" +
				"<news:publication_date>2024-03-01T13:00:00Z</news:publication_date><news:title>Bäder &amp; Öfen &lt;1&gt;</news:title></news:news>",
			"<news:language>zh-cn</news:language>",
		} {
			if !strings.Contains(string(docs), s) {
				t.Errorf("the news sitemap lacks %s:\n%s", s, docs)
			}
		}
	})
}

func show(urls []sitemap.URL) string {
	var b strings.Builder
	for _, u := range urls {
		b.WriteString("\n  " + u.Loc + " " + u.LastMod.String() + " " + string(u.ChangeFreq))
		if u.Priority != nil {
			b.WriteString(" " + strconv.FormatFloat(*u.Priority, 'g', -1, 64))
		}
		if u.News != nil {
			b.WriteString(" " + u.News.Language + " " + u.News.Title + " " + u.News.PublicationDate.String())
		}
	}
	return b.String()
}

func TestAnnotateErrors(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		tab := d.createArticles(t, articles(9))
		for name, tc := range map[string]struct {
			change   func(cfg *sqlsource.Config)
			wantURLs int
			wantErr  string
		}{
			"Annotate fails": {func(cfg *sqlsource.Config) {
				cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
					if r.Key == 7 {
						return errors.New("no news today")
					}
					return nil
				}
			}, 2, "sqlsource: page 2: key 7: no news today"},
			"column not in Columns": {func(cfg *sqlsource.Config) {
				cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
					_, err := r.Time("updated_at")
					return err
				}
			}, 0, `key 5: sqlsource: Row.Time: column "updated_at" is not in Config.Columns`},
			"not a time": {func(cfg *sqlsource.Config) {
				cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
					_, err := r.Time("title")
					return err
				}
			}, 0, `key 5: sqlsource: column title: cannot parse "Bäder & Öfen <5>" as a time`},
		} {
			t.Run(name, func(t *testing.T) {
				cfg := newsConfig(d, tab)
				tc.change(&cfg)
				urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 2)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || len(urls) != tc.wantURLs {
					t.Errorf("%d URLs, %v; want %d, then %q", len(urls), err, tc.wantURLs, tc.wantErr)
				}
			})
		}
	})
}

// TestRowTime reads every form of time Row.Time accepts, as the drivers
// deliver them, and NULL.
func TestRowTime(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		tab := d.createTable(t, "times",
			col("id", "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY"),
			col("url", "TEXT", "TEXT", "VARCHAR(255)"),
			col("t", "", "TIMESTAMP", "DATETIME"),
			col("d", "DATE", "DATE", "DATE"),
			col("tz", "TEXT", "TIMESTAMPTZ", "TIMESTAMP NULL"))
		at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
		day := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)
		for id, v := range [][3]any{
			{at, day, at},
			{nil, nil, nil},
		} {
			if d.name == "sqlite" && v[0] != nil {
				v = [3]any{at.Unix(), "2024-05-06", "2024-05-06T09:08:09+02:00"}
			}
			d.exec(t, "INSERT INTO "+tab+" VALUES (?, 'https://e.com/x', ?, ?, ?)", id+1, v[0], v[1], v[2])
		}
		var got [][3]time.Time
		src := newSource(t, d.db, sqlsource.Config{Table: tab, Key: "id", Loc: "url", Dialect: d.dialect, Columns: []string{"t", "d", "tz"},
			Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
				var ts [3]time.Time
				for i, c := range []string{"t", "d", "tz"} {
					var err error
					if ts[i], err = r.Time(c); err != nil {
						return err
					}
				}
				got = append(got, ts)
				return nil
			}})
		if _, err := readPage(context.Background(), src, 1); err != nil {
			t.Fatal(err)
		}
		if want := [][3]time.Time{{at, day, at}, {}}; !reflect.DeepEqual(got, want) {
			t.Errorf("times %v, want %v", got, want)
		}
	})
}

// TestAnnotateAllocs checks that Columns and Annotate cost no allocation
// per row beyond the caller's own, and that a path template with BaseURL
// costs none either: a page of 200 URLs is read with at most a few more
// allocations than without them.
func TestAnnotateAllocs(t *testing.T) {
	d := openDB(t, "sqlite")
	tab := d.createTable(t, "numbers", col("id", "INTEGER PRIMARY KEY", "", ""), col("slug", "TEXT", "", ""), col("n", "INTEGER", "", ""))
	d.exec(t, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 200) INSERT INTO "+tab+" SELECT i, 'item-' || i, i % 7 FROM k")
	high, low := 0.9, 0.1
	plain := sqlsource.Config{Table: tab, Key: "id", LocTemplate: base + "{slug}", PageSize: 1000, Dialect: d.dialect}
	annotated := plain
	annotated.Columns = []string{"n"}
	annotated.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
		n, err := r.Time("n") // Unix seconds
		u.Priority, u.ChangeFreq = &low, sitemap.Monthly
		if n.Unix() > 3 {
			u.Priority, u.ChangeFreq = &high, sitemap.Daily
		}
		return err
	}
	withBase := plain
	withBase.BaseURL, withBase.LocTemplate = strings.TrimSuffix(base, "/p/"), "/p/{slug}"
	allocs := func(cfg sqlsource.Config) float64 {
		src := newSource(t, d.db, cfg)
		return testing.AllocsPerRun(20, func() {
			n := 0
			for u, err := range src.URLs(context.Background(), 1) {
				if err != nil || u.Priority == nil && cfg.Annotate != nil || !strings.HasPrefix(u.Loc, base) {
					t.Fatalf("%+v, %v", u, err)
				}
				n++
			}
			if n != 200 {
				t.Fatalf("%d URLs", n)
			}
		})
	}
	a, b, w := allocs(plain), allocs(annotated), allocs(withBase)
	t.Logf("allocations per page of 200 URLs: %.0f plain, %.0f with Annotate, %.0f with BaseURL", a, b, w)
	if b > a+4 || w > a+4 {
		t.Errorf("Annotate and BaseURL cost allocations per row: %.0f and %.0f a page, %.0f without", b, w, a)
	}
}
