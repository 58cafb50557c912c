package redisstore_test

import (
	"encoding/binary"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
)

// What Redis says is checked, not trusted: someone with write access to
// Redis corrupts the generation's counter, or publishes a change at the
// largest generation. Within 10 s every file of every replica has its
// Last-Modified again, and a crawl within the TTL reads the Source no
// more than before the fault.

// base is the hash-tagged part of every key of the fleet's site.
const base = "{https://example.com/}:"

// allDated fetches every file of a catalogue of n URLs from every replica
// and reports whether each answered 200 with a Last-Modified.
func allDated(t *testing.T, n int64, sms []*sitemap.Sitemap) bool {
	for _, sm := range sms {
		for _, p := range files(n) {
			w := testkit.Fetch(sm, p)
			if w.Code != http.StatusOK || w.Header().Get("Last-Modified") == "" {
				return false
			}
		}
	}
	return true
}

func TestFleetCorruptCounter(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		sms, prefix := fleet(t, top, src)
		c, _ := top.admin(t)
		hs := sms
		allDated(t, 500, hs)        // the first builds
		time.Sleep(2 * time.Second) // a new Store's first clocks are up to two seconds ahead: served once the Date reaches them
		if !allDated(t, 500, hs) {
			t.Fatal("a file without Last-Modified before the fault")
		}
		if err := c.Set(t.Context(), prefix+base+"gen", "garbage", 0).Err(); err != nil {
			t.Fatal(err)
		}
		src.rev.Add(1)
		if err := sms[0].Invalidate("", 4); err != nil { // raises the generation
			t.Fatal(err)
		}
		recovers(t, src, hs, true)
	})
}

func TestFleetForgedMaxGeneration(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		// A short TTL: the fault showed as every replica reading every page
		// again each TTL, instead of one replica for the fleet.
		const ttl = 2 * time.Second
		c, prefix := top.admin(t)
		var sms []*sitemap.Sitemap
		for range 3 {
			sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", TTL: ttl,
				Store: newStore(t, top.client(t), redisstore.Options{Prefix: prefix})}, sitemap.Section{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sm.Close() })
			sms = append(sms, sm)
		}
		allDated(t, 500, sms)
		time.Sleep(2 * time.Second)
		if !allDated(t, 500, sms) {
			t.Fatal("a file without Last-Modified before the fault")
		}
		// A "changed" message, as the Sitemap encodes one, from a replica
		// that does not exist, naming every file at generation MaxInt64.
		m := []byte{1}
		m = binary.LittleEndian.AppendUint64(m, 42)
		m = binary.AppendVarint(m, math.MaxInt64)
		m = binary.LittleEndian.AppendUint64(m, 0)
		names := files(500)
		m = binary.AppendUvarint(m, uint64(len(names)))
		for _, p := range names {
			name := p[1:]
			m = binary.AppendUvarint(m, uint64(len(name)))
			m = append(m, name...)
		}
		if err := c.Publish(t.Context(), prefix+base+"changes", m).Err(); err != nil {
			t.Fatal(err)
		}
		recovers(t, src, sms, false) // its short TTL rebuilds files between crawls: checked below
		// Past the TTL, the fleet rebuilds each file once, not once a replica:
		// from the second TTL after the fault on (during the first, each
		// replica's own rebuild of the fault's files may still be the one its
		// ledger waits for).
		for round := range 3 {
			time.Sleep(ttl + 500*time.Millisecond)
			before := src.reads.Load()
			for range 3 { // the first crawl serves stale copies while they are rebuilt
				allDated(t, 500, sms)
				time.Sleep(300 * time.Millisecond)
			}
			if got := src.reads.Load() - before; round > 0 && got > 10 {
				t.Errorf("a crawl of three replicas %d TTLs after the fault read %d pages of 10 from the Source", round+1, got)
			}
		}
	})
}

// recovers checks that within 10 s every file of every replica is dated
// again, and, if quiet (a TTL longer than the test), that a crawl after
// that reads no page of the Source: the replicas share their copies again
// instead of each building its own.
func recovers(t *testing.T, src *catalogue, hs []*sitemap.Sitemap, quiet bool) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	defer func() { t.Logf("dated again after %v", time.Since(start)) }()
	for !allDated(t, 500, hs) {
		if time.Now().After(deadline) {
			t.Fatal("10 s after the fault, a file is still served without Last-Modified")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !quiet {
		return
	}
	time.Sleep(1500 * time.Millisecond) // past hearing's turn and lookEvery
	allDated(t, 500, hs)
	before := src.reads.Load()
	for range 3 {
		if !allDated(t, 500, hs) {
			t.Fatal("a file lost its Last-Modified again")
		}
	}
	if got := src.reads.Load() - before; got != 0 {
		t.Errorf("three crawls of every replica after the fault read %d pages from the Source, want 0", got)
	}
}
