package sitemap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap"
)

// cloudflarePurge returns a Config.OnPurge that purges the changed files by
// URL through Cloudflare's API (POST /zones/ZONE/purge_cache, at most 30
// files a request). api is "https://api.cloudflare.com/client/v4" in
// production. A CDN that purges by key, such as Fastly (POST
// /service/ID/purge with a Surrogate-Key header), would send p.Keys
// instead: the keys the responses carry in Surrogate-Key and Cache-Tag.
func cloudflarePurge(api, zone, token string) func(context.Context, sitemap.Purge) error {
	client := &http.Client{Timeout: 10 * time.Second}
	return func(ctx context.Context, p sitemap.Purge) error {
		for len(p.URLs) > 0 {
			n := min(len(p.URLs), 30)
			body, _ := json.Marshal(map[string][]string{"files": p.URLs[:n]})
			p.URLs = p.URLs[n:]
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/zones/"+zone+"/purge_cache", bytes.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("purge: %s", resp.Status)
			}
		}
		return nil
	}
}

// A CDN in front of the sitemap purges exactly the files whose bytes
// changed: here a news article arrives, and the news file and the index
// that dates it are purged in one call, once per fleet. A local server
// stands in for the CDN's API and checks each request.
func ExampleConfig_purge() {
	done := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Files []string }
		err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body)
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/zones/z123/purge_cache":
			http.Error(w, "no such endpoint", http.StatusNotFound)
		case r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("Content-Type") != "application/json":
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		case err != nil || len(body.Files) == 0 || len(body.Files) > 30:
			http.Error(w, "bad body", http.StatusBadRequest)
		default:
			fmt.Println(r.Method, r.URL.Path, "purges:")
			for _, f := range body.Files {
				fmt.Println(" ", f)
			}
			close(done)
		}
	}))
	defer api.Close()

	var clock atomic.Int64 // the time, moved on by the example
	clock.Store(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Unix())
	now := func() time.Time { return time.Unix(clock.Load(), 0).UTC() }
	news := &newsroom{}
	news.publish("https://example.com/news/1", now())

	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Now: now, OnPurge: cloudflarePurge(api.URL, "z123", "s3cret")},
		sitemap.Section{Name: "news", Source: news, Extensions: sitemap.ExtNews, Latest: true})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	for _, path := range []string{"/sitemap_index.xml", "/sitemap-news-1.xml.gz"} { // the CDN fetches them
		w := httptest.NewRecorder()
		sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, w.Code, "Surrogate-Key:", w.Header().Get("Surrogate-Key"))
	}

	clock.Add(60)
	news.publish("https://example.com/news/2", now())
	sm.Invalidate("news") // or adapters/sqlsource's Watch, with no application call
	<-done
	// Output:
	// /sitemap_index.xml 200 Surrogate-Key: example.com/sitemap_index
	// /sitemap-news-1.xml.gz 200 Surrogate-Key: example.com/sitemap-news-1
	// POST /zones/z123/purge_cache purges:
	//   https://example.com/sitemap-news-1.xml.gz
	//   https://example.com/sitemap-news-1.xml
	//   https://example.com/sitemap-news-1.txt
	//   https://example.com/sitemap_index.xml
	//   https://example.com/sitemap.xml
}

// newsroom is a news Source that lists its newest articles
// (sitemap.RecentLister), as a Latest section reads it.
type newsroom struct {
	mu   sync.Mutex
	urls []sitemap.URL // the newest first
}

func (n *newsroom) publish(loc string, at time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	u := sitemap.URL{Loc: loc, LastMod: at, News: &sitemap.News{PublicationName: "Example Times", Language: "en", PublicationDate: at, Title: "Story " + loc[len(loc)-1:]}}
	n.urls = append([]sitemap.URL{u}, n.urls...)
}

// Recent yields the k newest articles: SELECT … ORDER BY published_at DESC LIMIT k.
func (n *newsroom) Recent(_ context.Context, k int) iter.Seq2[sitemap.URL, error] {
	n.mu.Lock()
	urls := n.urls[:min(k, len(n.urls))]
	n.mu.Unlock()
	return func(yield func(sitemap.URL, error) bool) {
		for _, u := range urls {
			if !yield(u, nil) {
				return
			}
		}
	}
}

// Pages and URLs are not read in a Latest section.
func (n *newsroom) Pages(context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(func(sitemap.PageInfo, error) bool) {}
}

func (n *newsroom) URLs(context.Context, int64) iter.Seq2[sitemap.URL, error] {
	return func(func(sitemap.URL, error) bool) {}
}
