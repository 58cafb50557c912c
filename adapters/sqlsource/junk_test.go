package sqlsource_test

import (
	"context"
	"iter"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// countingSource counts the reads of the Source it wraps.
type countingSource struct {
	*sqlsource.Source
	pages, urls atomic.Int64
}

func (c *countingSource) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	c.pages.Add(1)
	return c.Source.Pages(ctx)
}

func (c *countingSource) URLs(ctx context.Context, n int64) iter.Seq2[sitemap.URL, error] {
	c.urls.Add(1)
	return c.Source.URLs(ctx, n)
}

// TestJunkPagesReadNoPage: page numbers the index does not list, asked
// for once the index is stale, cost no page query and at most one index
// query, on every database: before, each of them read its key range.
func TestJunkPagesReadNoPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		var counter *countingSource
		f := newFreshSite(t, d, func(src *sqlsource.Source) sitemap.Source {
			counter = &countingSource{Source: src}
			return counter
		})
		f.get(t, indexPath)
		f.clock.expire()
		pages, urls := counter.pages.Load(), counter.urls.Load()
		var wg sync.WaitGroup
		var notFound atomic.Int64
		for g := range 10 {
			wg.Go(func() {
				for i := range 200 {
					resp, err := f.srv.Client().Get(f.srv.URL + pagePath(int64(5+g*200+i)))
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					if resp.StatusCode == http.StatusNotFound {
						notFound.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if notFound.Load() != 2000 {
			t.Errorf("%d of 2,000 junk page numbers answered 404", notFound.Load())
		}
		if got := counter.urls.Load() - urls; got != 0 {
			t.Errorf("junk page numbers read %d pages, want 0", got)
		}
		if got := counter.pages.Load() - pages; got > 1 {
			t.Errorf("junk page numbers read the index %d times, want at most 1", got)
		}
		if r := f.get(t, pagePath(4)); r.status != http.StatusOK {
			t.Errorf("page 4, which the index lists: %d", r.status)
		}
	})
}
