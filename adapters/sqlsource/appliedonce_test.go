package sqlsource_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestWatchAppliedOnce: a Pages read made while Watch stands just after
// applying a batch sees that batch once: its page's Changed, LastMod and
// Version are the ones every later read (and a restart's) gives, not a
// second later because the batch was both in the summary and still
// waiting in the change table (which moved a Last-Modified back a second
// after a restart). On every database, with the change table and with
// logical decoding, told pages or told keys.
func TestWatchAppliedOnce(t *testing.T) {
	forEachCapture(t, func(t *testing.T, d *testDB, capture sqlsource.Capture) {
		for _, keys := range []bool{false, true} {
			name := "pages"
			if keys {
				name = "keys"
			}
			t.Run(name, func(t *testing.T) { appliedOnce(t, d, capture, keys) })
		}
	})
}

func appliedOnce(t *testing.T, d *testDB, capture sqlsource.Capture, keys bool) {
	c, src := keysSource(t, d, capture, nil)
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	sqlsource.HoldAfterApply(t, func() {
		once.Do(func() {
			close(held)
			<-release
		})
	})
	var inv sqlsource.Invalidator = &recorder{}
	if keys {
		inv = &keysRecorder{}
	}
	w, err := src.Watch(context.Background(), inv, "products")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	let := sync.OnceFunc(func() { close(release) })
	defer let()     // before Close, on any way out
	page(t, src, 2) // with logical decoding: the watcher caught up (Pages waits for it)
	d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("the watcher applied no batch within 20s")
	}
	during := page(t, src, 2)
	let()
	// Forgotten once the change table holds nothing for the page (its
	// Version names no change waiting), or, with logical decoding, once
	// the slot's position is acknowledged: the page's reads agree from
	// then on.
	time.Sleep(500 * time.Millisecond)
	after := page(t, src, 2)
	if !during.Changed.Equal(after.Changed) || !during.LastMod.Equal(after.LastMod) {
		t.Errorf("page 2 read between the apply and the change's forgetting: Changed %v, LastMod %v; read after: Changed %v, LastMod %v (the batch counted twice)",
			during.Changed, during.LastMod, after.Changed, after.LastMod)
	}
	if during.Version != after.Version {
		t.Errorf("page 2's Version %q between the apply and the forgetting, %q after", during.Version, after.Version)
	}
	// A restart reads the same clock.
	cfg := c.config(10)
	cfg.Summary, cfg.Significant, cfg.Capture = true, []string{"slug", "published", "noindex"}, capture
	again := newSource(t, d.db, cfg)
	if got := page(t, again, 2); !got.Changed.Equal(after.Changed) {
		t.Errorf("after a restart page 2's Changed is %v, was %v", got.Changed, after.Changed)
	}
}

// page returns page n's PageInfo from src.Pages.
func page(t *testing.T, src sitemap.Source, n int64) sitemap.PageInfo {
	t.Helper()
	infos, err := readPages(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range infos {
		if p.Number == n {
			return p
		}
	}
	t.Fatalf("no page %d in %v", n, infos)
	return sitemap.PageInfo{}
}
