package secstats

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// TestTable: the rows are the pages of each section, then the feeds,
// then the index; the feeds and pseudo-sections are named apart from any
// section.
func TestTable(t *testing.T) {
	tb := New(2, func(i int) string { return []string{"", "news"}[i] })
	for row, want := range []string{"", "news", "_feed", "_feed:news", "_index", "_index"} {
		if got := tb.At(row).Name(); got != want {
			t.Errorf("row %d: %q, want %q", row, got, want)
		}
	}
	if tb.At(1) != &tb.Pages[1] || tb.At(3) != &tb.Feeds[1] || tb.Other.Name() != "_other" {
		t.Error("At does not return the table's own counters")
	}
}

// TestReasons: a rejection counts by its field, ErrPageFull as page_full,
// anything else as other; a dropped element by its field.
func TestReasons(t *testing.T) {
	var c Counters
	c.Reject(&urlset.InvalidURLError{Field: "loc"})
	c.Reject(fmt.Errorf("wrapped: %w", &urlset.InvalidURLError{Field: "loc"}))
	c.Reject(urlset.ErrPageFull)
	c.Reject(errors.New("?"))
	c.Drop(&urlset.InvalidURLError{Field: "image.loc"})
	c.Cached(2, 100)
	c.Cached(-1, -40)
	c.Observe(3 * time.Millisecond)
	c.Hits.Add(1)
	s := c.Snapshot()
	if s.Rejected["loc"] != 2 || s.Rejected["page_full"] != 1 || s.Rejected["other"] != 1 || len(s.Rejected) != 3 {
		t.Errorf("rejected %v", s.Rejected)
	}
	if s.Dropped["image.loc"] != 1 || len(s.Dropped) != 1 {
		t.Errorf("dropped %v", s.Dropped)
	}
	if s.CachedDocuments != 1 || s.CachedBytes != 60 || s.Hits != 1 || s.BuildCount != 1 || s.BuildBuckets[1] != 0 || s.BuildBuckets[2] != 1 {
		t.Errorf("snapshot %+v", s)
	}
	s.Rejected["loc"] = 99 // the snapshot's maps are the caller's
	if c.Snapshot().Rejected["loc"] != 2 {
		t.Error("a snapshot's map is the counters' own")
	}
}
