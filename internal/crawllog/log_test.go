package crawllog

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrawlLogRecentRows: files whose rows share a slot of the table of
// rows last used (3,000 files in its 1,024 slots) are each logged in
// their own row, from several goroutines (run with -race).
func TestCrawlLogRecentRows(t *testing.T) {
	const files = 3000
	l := newLog(t, Options{Files: files})
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2 * files {
				p := int64((i*7+g*13)%files + 1)
				l.Record(File{N: p}, Slot(g), at.Add(time.Duration(p)*time.Second).Unix(), false, 200, p, true)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for p := int64(1); p <= files; p++ {
		seen[recentSlot(File{N: p})] = true
		got := l.Fetches(File{N: p})
		if len(got) != 4 {
			t.Fatalf("page %d: %d columns, want 4: %+v", p, len(got), got)
		}
		for _, f := range got {
			if f.Bytes != p || f.Fetches != 2 || !f.Time.Equal(at.Add(time.Duration(p)*time.Second)) {
				t.Fatalf("page %d: %+v", p, f)
			}
		}
	}
	if len(seen) > recentRows || len(seen) < recentRows/2 {
		t.Errorf("%d files in %d slots of %d", files, len(seen), recentRows)
	}
}

// TestCrawlCellStore: a cell keeps its last fetch to the second: one
// that changes nothing within the second stores nothing but its count,
// one that changes anything is stored, and one answered earlier than
// the stored one and stored late does not replace it. Times before 1970
// and the zero time survive the packing.
func TestCrawlCellStore(t *testing.T) {
	var cell crawlCell
	if _, ok := cell.fetch(); ok {
		t.Fatal("a new cell has a fetch")
	}
	for i, c := range []struct {
		step   string
		sec    int64
		cond   bool
		status int
		bytes  int64
		want   Fetch // but Fetches, which is i+1
	}{
		{"first", 100, false, 200, 5000, Fetch{Time: time.Unix(100, 0), Status: 200, Bytes: 5000}},
		{"the same in the second", 100, false, 200, 5000, Fetch{Time: time.Unix(100, 0), Status: 200, Bytes: 5000}},
		{"other bytes", 100, false, 200, 4000, Fetch{Time: time.Unix(100, 0), Status: 200, Bytes: 4000}},
		{"a 304", 100, true, 304, 0, Fetch{Time: time.Unix(100, 0), Status: 304, Conditional: true}},
		{"an earlier one, stored late", 99, false, 200, 7, Fetch{Time: time.Unix(100, 0), Status: 304, Conditional: true}},
		{"the next second", 101, true, 304, 0, Fetch{Time: time.Unix(101, 0), Status: 304, Conditional: true}},
	} {
		cell.store(c.sec, c.cond, c.status, c.bytes)
		c.want.Fetches = int64(i + 1)
		if f, ok := cell.fetch(); !ok || f != c.want {
			t.Errorf("%s: %+v, want %+v", c.step, f, c.want)
		}
	}
	for _, sec := range []int64{-1, time.Time{}.Unix(), 0, 1 << 40} {
		var c crawlCell
		c.store(sec, true, 503, 1)
		if f, _ := c.fetch(); f.Time.Unix() != sec || f.Status != 503 || !f.Conditional {
			t.Errorf("second %d: %+v", sec, f)
		}
	}
}

// TestCrawlLogConcurrentCell: goroutines logging fetches of one file by
// one column while others read the log (run with -race): a reader sees
// each last fetch whole (its bytes are its status's and second's), and
// counts that never go down; at the end, every fetch is counted, in the
// file's and the group's counts alike.
func TestCrawlLogConcurrentCell(t *testing.T) {
	l := newLog(t, Options{Files: 10})
	k, c := File{N: 1}, googleV
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const writers, each = 4, 20_000
	var wg sync.WaitGroup
	var done atomic.Bool
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				sec := int64(i / 100)
				status := []int{200, 304}[(i+g)%2]
				l.Record(k, c, at.Add(time.Duration(sec)*time.Second).Unix(), status == 304, status, sec*1000+int64(status), true)
			}
		})
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			var fetches, counted int64
			for !done.Load() {
				got := l.Fetches(k)
				if len(got) == 0 {
					continue
				}
				f := got[0]
				if sec := f.Time.Sub(at) / time.Second; f.Bytes != int64(sec)*1000+int64(f.Status) || f.Conditional != (f.Status == 304) {
					t.Errorf("a torn fetch: %+v", f)
					return
				}
				_, counts := l.Group(0)
				var n int64
				for _, cc := range counts {
					n += cc.Fetches
				}
				if f.Fetches < fetches || n < counted {
					t.Errorf("counts went down: file %d → %d, section %d → %d", fetches, f.Fetches, counted, n)
					return
				}
				fetches, counted = f.Fetches, n
			}
		})
	}
	wg.Wait()
	done.Store(true)
	readers.Wait()
	got := l.Fetches(k)
	if len(got) != 1 || got[0].Fetches != writers*each || !got[0].Time.Equal(at.Add((each-1)/100*time.Second)) {
		t.Errorf("after: %+v", got)
	}
	if tt := l.Totals(); tt.Verified != writers*each || tt.Unverified != 0 || tt.ByPurpose[Search] != writers*each {
		t.Errorf("totals %+v; want %d verified, 0 unverified, all of them search", tt, writers*each)
	}
}
