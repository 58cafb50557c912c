package sitemap

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// What a message from the Store costs (hearing.go, invalidate.go): tests
// that drive a replica's fleet.onMessage with messages no replica sent, as
// anyone who can publish on the Store's channel can.

// forged is an encoded message from a replica that does not exist.
func forged(kind byte, gen int64, names ...string) []byte {
	return (&message{kind: kind, from: 1, gen: gen, hash: 42, names: names}).encode()
}

// TestMessageUnknownNames: "changed" and "built" messages that name
// pages this replica neither caches nor finds in its index leave nothing
// behind: no ledger mark, no clock record, no entry anywhere. They used to
// leave a mark each (10 messages of 200,000 names: +42 MB).
func TestMessageUnknownNames(t *testing.T) {
	src := newFake(250, 50)
	sm := newTestSitemap(t, Config{Store: newMemStore()}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	f := sm.docs.tier.(*fleet)
	n := 200_000
	if raceEnabled {
		n = 20_000
	}
	marks, clocks := sm.docs.ledger.size(), clockRecords(sm)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range 10 {
		names := make([]string, n)
		for j := range names {
			names[j] = "sitemap-" + strconv.Itoa(1000+i*n+j) + ".xml.gz" // no such page: the index lists 5
		}
		f.onMessage(forged(msgChanged, int64(100+i), names...))
		f.onMessage(forged(msgBuilt, 0, names...))
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("figures: 20 messages of %d unknown names: marks %d → %d, clock records %d → %d, heap %+d bytes",
		n, marks, sm.docs.ledger.size(), clocks, clockRecords(sm), grew)
	if got := sm.docs.ledger.size(); got != marks {
		t.Errorf("%d ledger marks after the messages, %d before", got, marks)
	}
	if got := clockRecords(sm); got != clocks {
		t.Errorf("%d clock records after the messages, %d before", got, clocks)
	}
	if got := sm.docs.hearing.size(); got > 0 {
		t.Errorf("hearing holds %d entries for unknown names", got)
	}
	if grew > 1<<20 {
		t.Errorf("the heap grew by %d bytes", grew)
	}
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 || src.urlsCalls.Load() != 1 {
		t.Errorf("status %d after %d page reads: the page was outdated", w.Code, src.urlsCalls.Load())
	}
}

func clockRecords(sm *Sitemap) int {
	c := sm.docs.clocks
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// TestMessageFloodBounded: 100 "changed" messages a second for one
// cached page, each followed by a "built" message naming bytes no replica
// stored, while a crawler asks for the page all along, cost about one
// Source read a second, not one per message (it used to be one per
// message). The last change is never lost: one said in the flood's last
// message, while the others wait for their turn, is served after.
func TestMessageFloodBounded(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	st := newMemStore()
	sm := newTestSitemap(t, Config{Store: st}, Section{Source: src, PageSize: 50})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	f := sm.docs.tier.(*fleet)
	reads, gets := src.urlsCalls.Load(), st.gets.Load()
	stop := make(chan struct{})
	crawled := make(chan int)
	go func() { // a crawler, every 2 ms
		n := 0
		defer func() { crawled <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				get(sm, "/sitemap-1.xml.gz")
				n++
			}
		}
	}()
	const msgs = 150 // 1.5 s at 100 a second
	start := time.Now()
	for i := range msgs {
		if i == msgs-1 {
			src.rev.Add(1) // a real change, said in the last message
		}
		gen, _ := st.Incr(t.Context(), f.sh.ns+"gen")
		f.onMessage(forged(msgChanged, gen, "sitemap-1.xml.gz"))
		f.onMessage(forged(msgBuilt, 0, "sitemap-1.xml.gz"))
		time.Sleep(10 * time.Millisecond)
	}
	flood := time.Since(start)
	want := "rev=" + strconv.FormatInt(src.rev.Load(), 10)
	var body string
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(body, want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the change said in the last message is not served after 5 s")
		}
		body = string(testkit.Gunzip(t, get(sm, "/sitemap-1.xml.gz").Body.Bytes()))
	}
	close(stop)
	n := <-crawled
	got := src.urlsCalls.Load() - reads
	t.Logf("figures: %d messages of each kind in %v, %d requests: %d page reads, %d Store reads",
		msgs, flood.Round(time.Millisecond), n, got, st.gets.Load()-gets)
	if limit := int64(flood/time.Second) + 3; got > limit {
		t.Errorf("%d page reads for %d messages in %v, want at most %d", got, msgs, flood, limit)
	}
}
