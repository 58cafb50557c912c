package sqlsource_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// createVideos creates a video table in d, one row a video, with a column
// of each kind VideosFrom reads, and drops it when t ends.
func createVideos(t *testing.T, d *testDB) string {
	t.Helper()
	return d.createTable(t, "videos",
		col("product_id", "INTEGER NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL"),
		col("position", "INTEGER NOT NULL", "INTEGER NOT NULL", "INTEGER NOT NULL"),
		col("thumb", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"),
		col("title", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"),
		col("descr", "TEXT NOT NULL", "TEXT NOT NULL", "TEXT NOT NULL"),
		col("file", "TEXT", "TEXT", "VARCHAR(255)"),
		col("player", "TEXT", "TEXT", "VARCHAR(255)"),
		col("seconds", "INTEGER", "INTEGER", "INTEGER"),
		col("published", "TEXT", "TIMESTAMPTZ", "DATETIME"),
		col("rating", "REAL", "DOUBLE PRECISION", "DOUBLE"),
		col("views", "INTEGER", "BIGINT", "BIGINT"),
		col("family", "BOOLEAN", "BOOLEAN", "BOOLEAN"),
		col("live", "TEXT", "TEXT", "VARCHAR(3)"),
		col("tags", "TEXT", "TEXT", "VARCHAR(255)"),
		col("uploader", "TEXT", "TEXT", "VARCHAR(255)"))
}

// videoTable names every column createVideos makes.
func videoTable(table string) sqlsource.VideoTable {
	return sqlsource.VideoTable{Table: table, Key: "product_id", Order: "position",
		ThumbnailLoc: "thumb", Title: "title", Description: "descr", ContentLoc: "file", PlayerLoc: "player",
		Duration: "seconds", PublicationDate: "published", Rating: "rating", ViewCount: "views",
		FamilyFriendly: "family", Live: "live", Tags: "tags", Uploader: "uploader"}
}

// TestVideosFrom reads videos on every database: each field from its
// column, paths resolved, NULL as unset, booleans as yes and no, tags
// split, the order of the key then Order, a key outside the page ignored.
func TestVideosFrom(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2, 3))
		videos := createVideos(t, d)
		published := time.Date(2024, 5, 1, 10, 30, 0, 0, time.UTC)
		var when any = published
		if d.name == "sqlite" {
			when = "2024-05-01 10:30:00"
		}
		d.exec(t, "INSERT INTO "+videos+" VALUES (1, 1, '/t/1b.jpg', 'Second', 'The second video', NULL, 'https://player.example.com/1b', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
		d.exec(t, "INSERT INTO "+videos+" VALUES (1, 0, '/t/1a.jpg', 'First ü', 'The first video', '/v/1a.mp4', NULL, 95, ?, 4.5, 1200, ?, 'no', 'steel, knives ,, kitchen', 'Shop TV')", when, true)
		d.exec(t, "INSERT INTO "+videos+" VALUES (3, 0, 'https://cdn.example.com/3.jpg', 'Three', 'Third', '/v/3.mp4', NULL, 10, NULL, NULL, NULL, ?, NULL, '', NULL)", false)
		d.exec(t, "INSERT INTO "+videos+" VALUES (1000, 0, '/t/x.jpg', 'X', 'X', '/v/x.mp4', NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
		cfg := c.config(100)
		cfg.BaseURL = "https://shop.example.com"
		cfg.Loaders = []sqlsource.Loader{sqlsource.VideosFrom(videoTable(videos))}
		urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
		if err != nil || len(urls) != 3 {
			t.Fatalf("%d URLs, %v", len(urls), err)
		}
		want := [][]sitemap.Video{
			{{ThumbnailLoc: "https://shop.example.com/t/1a.jpg", Title: "First ü", Description: "The first video",
				ContentLoc: "https://shop.example.com/v/1a.mp4", Duration: 95 * time.Second, PublicationDate: published,
				Rating: new(4.5), ViewCount: new(int64(1200)), FamilyFriendly: "yes", Live: "no",
				Tags: []string{"steel", "knives", "kitchen"}, Uploader: "Shop TV"},
				{ThumbnailLoc: "https://shop.example.com/t/1b.jpg", Title: "Second", Description: "The second video",
					PlayerLoc: "https://player.example.com/1b"}},
			nil,
			{{ThumbnailLoc: "https://cdn.example.com/3.jpg", Title: "Three", Description: "Third",
				ContentLoc: "https://shop.example.com/v/3.mp4", Duration: 10 * time.Second, FamilyFriendly: "no"}},
		}
		for i, u := range urls {
			if !reflect.DeepEqual(u.Videos, want[i]) {
				t.Errorf("%s: videos\n%+v\nwant\n%+v", u.Loc, u.Videos, want[i])
			}
		}
	})
}

// TestVideosFromErrors: a VideoTable without what every video needs is an
// error on its first page, and a value of the wrong kind fails the page,
// naming its key.
func TestVideosFromErrors(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2))
		videos := createVideos(t, d)
		cfg := c.config(100)
		full := videoTable(videos)
		noTitle, noMedia, noKey := full, full, full
		noTitle.Title = ""
		noMedia.ContentLoc, noMedia.PlayerLoc = "", ""
		noKey.Key = ""
		for _, tc := range []struct {
			table sqlsource.VideoTable
			want  string
		}{
			{noTitle, "needs VideoTable.ThumbnailLoc, Title and Description"},
			{noMedia, "needs VideoTable.ContentLoc or PlayerLoc"},
			{noKey, "needs VideoTable.Table and Key"},
		} {
			cfg.Loaders = []sqlsource.Loader{sqlsource.VideosFrom(tc.table)}
			if urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1); err == nil || !strings.Contains(err.Error(), tc.want) || len(urls) != 0 {
				t.Errorf("%d URLs, %v; want the error %q", len(urls), err, tc.want)
			}
		}
		// A date that does not parse: text where a date was expected.
		bad := full
		bad.PublicationDate = "title"
		d.exec(t, "INSERT INTO "+videos+" (product_id, position, thumb, title, descr, file) VALUES (2, 0, '/t.jpg', 'not a date', 'd', '/v.mp4')")
		cfg.Loaders = []sqlsource.Loader{sqlsource.VideosFrom(bad)}
		if urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1); err == nil || !strings.Contains(err.Error(), "a video of key 2") || len(urls) != 0 {
			t.Errorf("%d URLs, %v; want an error naming key 2", len(urls), err)
		}
	})
}

// TestVideosFromServed: the videos read reach the sitemap's file, which
// is valid against the video schema; a video that breaks a rule (over 8
// hours) is left out alone and reported.
func TestVideosFromServed(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1, 2))
	videos := createVideos(t, d)
	d.exec(t, "INSERT INTO "+videos+" VALUES (1, 0, '/t/1.jpg', 'One', 'The first', '/v/1.mp4', NULL, 600, '2024-05-01', 3.0, 7, 1, 'yes', 'a,b', 'Me')")
	d.exec(t, "INSERT INTO "+videos+" VALUES (1, 1, '/t/2.jpg', 'Too long', 'Nine hours', '/v/2.mp4', NULL, 32400, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
	cfg := c.config(100)
	cfg.BaseURL = "https://shop.example.com"
	cfg.Loaders = []sqlsource.Loader{sqlsource.VideosFrom(videoTable(videos))}
	var notices []string
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com",
		OnNotice: func(_ string, _ int64, loc string, err error) { notices = append(notices, loc+": "+err.Error()) }},
		sitemap.Section{Source: newSource(t, d.db, cfg), Extensions: sitemap.ExtVideo})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	w := httptest.NewRecorder()
	sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil))
	zr, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatalf("status %d: %v", w.Code, err)
	}
	doc, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := `<video:video><video:thumbnail_loc>https://shop.example.com/t/1.jpg</video:thumbnail_loc><video:title>One</video:title>` +
		`<video:description>The first</video:description><video:content_loc>https://shop.example.com/v/1.mp4</video:content_loc>` +
		`<video:duration>600</video:duration>`
	if !strings.Contains(string(doc), want) || strings.Count(string(doc), "<video:video>") != 1 {
		t.Errorf("got\n%s\nwant one video starting\n%s", doc, want)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "video") {
		t.Errorf("notices %q, want the nine-hour video's", notices)
	}
	xsdcheck.URLSet(t, doc)
}
