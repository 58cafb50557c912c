package audit

import (
	"bytes"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestLeftOutBounded: at most leftOutMax URLs are left out, the refusal
// logged once; a lookup allocates nothing; a URL let back in frees its
// place.
func TestLeftOutBounded(t *testing.T) {
	var logs testkit.SyncBuffer
	var rebuilt atomic.Int64
	l := newLeftOut(func(int) { rebuilt.Add(1) }, writtenLoc, slog.New(slog.NewTextHandler(&logs, nil)))
	noindex := []pagecheck.Finding{{Kind: pagecheck.Noindex, Detail: "x"}}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i := range leftOutMax + 100 {
		l.add(fmt.Sprintf("https://example.com/%d", i), 1, noindex, now)
	}
	if n, f := l.count(1); n != leftOutMax || f != leftOutMax {
		t.Errorf("%d left out (%d of the file), want %d", n, f, leftOutMax)
	}
	if n := strings.Count(logs.String(), "leaves out no more"); n != 1 {
		t.Errorf("%d lines about the limit, want 1", n)
	}
	if l.add("https://example.com/other", 2, []pagecheck.Finding{{Kind: pagecheck.Status, Detail: "404"}}, now) {
		t.Error("a 404 was left out")
	}
	l.publish()
	loc := []byte("https://example.com/7")
	elem := []byte("<url><loc>https://example.com/7</loc><lastmod>2025-01-01</lastmod></url>")
	if n := testing.AllocsPerRun(100, func() { l.omits(elem) }); n != 0 || !l.omits(elem) || l.has([]byte("https://example.com/x")) {
		t.Errorf("omits: %v allocations", n)
	}
	if l.keep("https://example.com/7", nil) {
		t.Error("a URL found fine is still to be left out")
	}
	if !l.has(loc) {
		t.Error("builds see a change before it is published")
	}
	if l.publish(); l.has(loc) {
		t.Error("a URL found fine is still left out")
	}
	if !l.add("https://example.com/new", 1, noindex, now) {
		t.Error("a freed place was not taken")
	}
	if got := len(l.of(1, now.Add(leftOutHold-time.Second))); got != 0 {
		t.Errorf("%d URLs to ask again within leftOutHold, want none", got)
	}
	if got := len(l.of(1, now.Add(leftOutHold))); got != leftOutRecheck {
		t.Errorf("%d URLs to ask again, want %d", got, leftOutRecheck)
	}
}

// BenchmarkOmits is Options.LeaveOut's lookup of one <url> element, as a
// build makes it for every URL it writes, with no URL left out and with
// 100 (not this one): root's BenchmarkEncodeLeftOut has it in a build.
func BenchmarkOmits(b *testing.B) {
	elem := []byte("<url><loc>https://example.com/products/123456</loc><lastmod>2025-01-01</lastmod></url>")
	for _, left := range []int{0, 100} {
		b.Run("left="+strconv.Itoa(left), func(b *testing.B) {
			l := newLeftOut(func(int) {}, writtenLoc, slog.New(slog.DiscardHandler))
			for i := range left {
				l.add(fmt.Sprintf("https://elsewhere.example/%d", i), 1, []pagecheck.Finding{{Kind: pagecheck.Noindex}}, time.Time{})
			}
			l.publish()
			b.ReportAllocs()
			for b.Loop() {
				if l.omits(elem) {
					b.Fatal("left out")
				}
			}
		})
	}
}

// writtenLoc is the root package's reader of a <url> element's location,
// as written, for these tests: what follows <url><loc>, up to </loc>.
func writtenLoc(elem []byte) []byte {
	elem = bytes.TrimPrefix(elem, []byte("<url><loc>"))
	loc, _, _ := bytes.Cut(elem, []byte("</loc>"))
	return loc
}
