package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
)

// lag measures commit → new bytes served: a Sitemap over the table,
// Watch telling it, the writers renaming random rows at full speed, and
// a probe that renames one row at a time and fetches its page (If-None-Match,
// every 10 ms) until the new slug is in it.
func (b *bench) lag(ctx context.Context) error {
	if err := b.src.InstallSummary(ctx); err != nil {
		return err
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"}, sitemap.Section{Name: "products", Source: b.src})
	if err != nil {
		return err
	}
	defer sm.Close()
	srv := httptest.NewServer(sm)
	defer srv.Close()
	w, err := b.src.Watch(ctx, sm, "products")
	if err != nil {
		return err
	}
	defer w.Close()
	sig := "UPDATE " + b.table + " SET slug = " + placeholder(b.dialect, 1) + " WHERE id = " + placeholder(b.dialect, 2)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var writes int64
	var mu sync.Mutex
	for i := range b.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			n := int64(0)
			for wctx.Err() == nil {
				if _, err := b.db.ExecContext(wctx, sig, fmt.Sprint("w-", i, "-", n), 2*(1+r.Int64N(b.rows))); err == nil {
					n++
				}
			}
			mu.Lock()
			writes += n
			mu.Unlock()
		}()
	}
	time.Sleep(time.Second)
	var lags []time.Duration
	r := rand.New(rand.NewPCG(99, 1))
	began := time.Now()
	for k := range 20 {
		id := 2 * (1 + r.Int64N(b.rows))
		page := b.src.PageOf(id)
		path := fmt.Sprintf("%s/sitemap-products-%d.xml.gz", srv.URL, page)
		etag, _, err := fetch(path, "", "")
		if err != nil {
			return err
		}
		slug := fmt.Sprintf("lag-%d-%d", k, time.Now().UnixNano())
		if _, err := b.db.ExecContext(ctx, sig, slug, id); err != nil {
			return err
		}
		committed := time.Now()
		for {
			if time.Since(committed) > 30*time.Second {
				return fmt.Errorf("page %d never showed %s", page, slug)
			}
			var found bool
			etag, found, err = fetch(path, etag, slug)
			if err != nil {
				return err
			}
			if found {
				lags = append(lags, time.Since(committed))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	elapsed := time.Since(began)
	stop()
	wg.Wait()
	slices.Sort(lags)
	fmt.Printf("commit → new bytes served, %d probes, writers renaming at %.0f/s: p50 %v, p99 (max) %v\n", len(lags),
		float64(writes)/(elapsed.Seconds()+1), lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
	return nil
}

// fetch GETs path with If-None-Match: etag, and reports the new ETag and
// whether the (new) bytes hold want.
func fetch(path, etag, want string) (string, bool, error) {
	req, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return "", false, err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return etag, false, nil
	case http.StatusOK:
	default:
		return etag, false, nil // a rebuild under way, or a 503: ask again
	}
	z, err := gzip.NewReader(resp.Body)
	if err != nil {
		return "", false, err
	}
	body, err := io.ReadAll(z)
	if err != nil {
		return "", false, err
	}
	return resp.Header.Get("ETag"), want != "" && bytes.Contains(body, []byte(want)), nil
}
