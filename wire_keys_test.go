package sitemap

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/paths"
)

// wireStore is an in-memory Store that records every call: the operation
// and the key or channel it names.
type wireStore struct {
	mu       sync.Mutex
	vals     map[string][]byte
	counters map[string]int64
	locks    map[string]bool
	ops      map[string]bool // "op key"
	msgs     [][]byte        // published, in order
}

func newWireStore() *wireStore {
	return &wireStore{vals: map[string][]byte{}, counters: map[string]int64{}, locks: map[string]bool{}, ops: map[string]bool{}}
}

func (s *wireStore) op(op, key string) { s.ops[op+" "+key] = true }

func (s *wireStore) Get(_ context.Context, keys ...string) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := make([][]byte, len(keys))
	for i, k := range keys {
		s.op("get", k)
		vs[i] = s.vals[k]
	}
	return vs, nil
}

func (s *wireStore) Set(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op("set", key)
	s.vals[key] = bytes.Clone(value)
	return nil
}

func (s *wireStore) Lock(_ context.Context, key string) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op("lock", key)
	if s.locks[key] {
		return nil, ErrLocked
	}
	s.locks[key] = true
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.op("unlock", key)
		delete(s.locks, key)
	}, nil
}

func (s *wireStore) Incr(_ context.Context, key string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op("incr", key)
	s.counters[key]++
	return s.counters[key], nil
}

func (s *wireStore) Publish(_ context.Context, channel string, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op("publish", channel)
	s.msgs = append(s.msgs, bytes.Clone(msg))
	return nil
}

// Subscribe records the subscription; messages are not delivered (one
// replica ignores its own).
func (s *wireStore) Subscribe(_ context.Context, channel string, _ func([]byte)) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op("subscribe", channel)
	return make(chan struct{}), nil
}

// calls returns the recorded calls, sorted, and what each published
// message said ("kind name…"), sorted. Every stored value must decode.
func (s *wireStore) calls(t *testing.T) (ops, msgs []string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for op := range s.ops {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, b := range s.msgs {
		m, err := decodeMessage(b)
		if err != nil {
			t.Errorf("a published message does not decode: %v", err)
			continue
		}
		kind := map[byte]string{msgChanged: "changed", msgBuilt: "built", msgLost: "lost"}[m.kind]
		msgs = append(msgs, kind+" "+strings.Join(m.names, " "))
	}
	slices.Sort(msgs)
	for k, v := range s.vals {
		var err error
		switch {
		case strings.HasSuffix(k, "}:born"):
			_, err = decodeBorn(v)
		case strings.HasSuffix(k, "}:clock"):
			_, _, err = decodeStoredClock(v)
		default:
			_, _, err = decodeRecord(indexKey, v)
		}
		if err != nil {
			t.Errorf("the value stored at %q does not decode: %v", k, err)
		}
	}
	return ops, msgs
}

// wireRecent is a Source that lists its recent URLs, so that its section
// has an Atom feed.
type wireRecent struct {
	Source
	urls []URL
}

func (r wireRecent) Recent(_ context.Context, n int) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for _, u := range r.urls[:min(n, len(r.urls))] {
			if !yield(u, nil) {
				return
			}
		}
	}
}

// wireServe requests each path of sm, which must answer 200.
func wireServe(t *testing.T, sm *Sitemap, paths ...string) {
	t.Helper()
	for _, p := range paths {
		rec := httptest.NewRecorder()
		sm.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://example.com"+p, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, rec.Code, rec.Body)
		}
	}
}

// TestWireKeys pins the names of the keys and the channel a Sitemap uses
// in its Store, as the Store sees them while documents are served, and
// the names messages give documents. These names are the Store's wire
// format, shared by old and new replicas during a deploy: they must not
// change by accident. (A replica that names a key otherwise does not see
// the others' copies, clocks, locks or messages.) They changed once, on
// purpose (CHANGELOG, Unreleased): a document's keys moved from the site's
// hash tag to one of their own, "{BASE+NAME}:copy", ":clock" and ":lock",
// so that a site spreads over a Redis Cluster's shards; the site's own
// keys (born, gen, lock:born) and its channel kept their names, so old and
// new replicas still agree on the era and hear each other's changes.
func TestWireKeys(t *testing.T) {
	now := func() time.Time { return wireT1 }
	var urls []URL
	for i := 1; i <= 5; i++ {
		urls = append(urls, URL{Loc: "https://example.com/shop/p/" + string(rune('0'+i)), LastMod: wireT3.Add(time.Duration(i) * time.Hour)})
	}
	recent := slices.Clone(urls)
	slices.Reverse(recent) // newest first
	products := wireRecent{Source: FromSlice(urls, 2), urls: recent}

	// check serves paths of sm and compares what st saw: every call with
	// the key or channel it named, and every message published, each
	// sorted (the order of calls is not the wire format).
	check := func(t *testing.T, sm *Sitemap, st *wireStore, paths []string, wantOps, wantMsgs []string) {
		t.Helper()
		wireServe(t, sm, paths...)
		ops, msgs := st.calls(t)
		wantOps = slices.Sorted(slices.Values(wantOps))
		if !slices.Equal(ops, wantOps) {
			t.Errorf("the store saw the calls\n\t%s\nwant\n\t%s", strings.Join(ops, "\n\t"), strings.Join(wantOps, "\n\t"))
		}
		if !slices.Equal(msgs, wantMsgs) {
			t.Errorf("the messages published\n\t%s\nwant\n\t%s", strings.Join(msgs, "\n\t"), strings.Join(wantMsgs, "\n\t"))
		}
	}
	// names compares names the Sitemap makes with the literal ones.
	names := func(t *testing.T, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("names %q, want %q", got, want)
		}
	}

	t.Run("named sections", func(t *testing.T) {
		st := newWireStore()
		sm, err := New(Config{BaseURL: "https://example.com/shop", Store: st, Now: now, FeedEntries: 10},
			Section{Name: "products", Source: products, PageSize: 2},
			Section{Name: "news", Source: FromSlice([]URL{{Loc: "https://example.com/shop/n/1", LastMod: wireT4,
				News: &News{PublicationName: "Shop", Language: "en", PublicationDate: wireT4, Title: "One"}}}, 1000), Extensions: ExtNews})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		// The names as the Sitemap makes them (the layout names the
		// sections in the index's key: the xxhash of "products\x00news\x00").
		names(t, []string{
			paths.Layout(sm.site.Files),
			sm.site.storeName(indexKey),
			sm.site.storeName(pageKey(0, 3)),
			sm.site.storeName(pageKey(1, 1)),
			sm.site.storeName(feedKey(0)),
			sm.docs.tier.(*fleet).sh.ns,
			sm.docs.tier.(*fleet).sh.channel,
		}, []string{
			"a022896365adeb7d",
			"sitemap_index.xml@a022896365adeb7d",
			"sitemap-products-3.xml.gz",
			"sitemap-news-1.xml.gz",
			"sitemap-products.atom",
			"{https://example.com/shop/}:",
			"{https://example.com/shop/}:changes",
		})
		// What the Store sees: the index (its key names the layout; the
		// pages' clocks are read for it), two pages (each with its clock
		// apart) and a feed; the generation at subscription and at each
		// build; when the Store's state began (born), with every copy.
		check(t, sm, st, []string{"/shop/sitemap_index.xml", "/shop/sitemap-products-1.xml.gz", "/shop/sitemap-products-3.xml.gz", "/shop/sitemap-products.atom"},
			[]string{
				"get {https://example.com/shop/}:born",
				"get {https://example.com/shop/sitemap-news-1.xml.gz}:clock",
				"get {https://example.com/shop/sitemap-products-1.xml.gz}:clock",
				"get {https://example.com/shop/sitemap-products-2.xml.gz}:clock",
				"get {https://example.com/shop/sitemap-products-3.xml.gz}:clock",
				"get {https://example.com/shop/sitemap-products.atom}:clock",
				"get {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:clock",
				"get {https://example.com/shop/sitemap-products-1.xml.gz}:copy",
				"get {https://example.com/shop/sitemap-products-3.xml.gz}:copy",
				"get {https://example.com/shop/sitemap-products.atom}:copy",
				"get {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:copy",
				"incr {https://example.com/shop/}:gen",
				"lock {https://example.com/shop/}:lock:born",
				"lock {https://example.com/shop/sitemap-products-1.xml.gz}:lock",
				"lock {https://example.com/shop/sitemap-products-3.xml.gz}:lock",
				"lock {https://example.com/shop/sitemap-products.atom}:lock",
				"lock {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:lock",
				"publish {https://example.com/shop/}:changes",
				"set {https://example.com/shop/}:born",
				"set {https://example.com/shop/sitemap-products-1.xml.gz}:clock",
				"set {https://example.com/shop/sitemap-products-3.xml.gz}:clock",
				"set {https://example.com/shop/sitemap-products.atom}:clock",
				"set {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:clock",
				"set {https://example.com/shop/sitemap-products-1.xml.gz}:copy",
				"set {https://example.com/shop/sitemap-products-3.xml.gz}:copy",
				"set {https://example.com/shop/sitemap-products.atom}:copy",
				"set {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:copy",
				"subscribe {https://example.com/shop/}:changes",
				"unlock {https://example.com/shop/}:lock:born",
				"unlock {https://example.com/shop/sitemap-products-1.xml.gz}:lock",
				"unlock {https://example.com/shop/sitemap-products-3.xml.gz}:lock",
				"unlock {https://example.com/shop/sitemap-products.atom}:lock",
				"unlock {https://example.com/shop/sitemap_index.xml@a022896365adeb7d}:lock",
			},
			// Messages name the index without its layout.
			[]string{
				"built sitemap-products-1.xml.gz",
				"built sitemap-products-3.xml.gz",
				"built sitemap-products.atom",
				"built sitemap_index.xml",
			})
	})

	t.Run("unnamed section", func(t *testing.T) {
		st := newWireStore()
		sm, err := New(Config{BaseURL: "https://example.com", Store: st, Now: now, FeedEntries: 10},
			Section{Source: products, PageSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		names(t, []string{
			paths.Layout(sm.site.Files),
			sm.site.storeName(indexKey),
			sm.site.storeName(pageKey(0, 3)),
			sm.site.storeName(feedKey(0)),
			sm.docs.tier.(*fleet).sh.ns,
			sm.docs.tier.(*fleet).sh.channel,
		}, []string{
			"e934a84adb052768", // the xxhash of "\x00"
			"sitemap_index.xml@e934a84adb052768",
			"sitemap-3.xml.gz",
			"sitemap.atom",
			"{https://example.com/}:",
			"{https://example.com/}:changes",
		})
		check(t, sm, st, []string{"/sitemap_index.xml", "/sitemap-2.xml.gz", "/sitemap.atom"},
			[]string{
				"get {https://example.com/}:born",
				"get {https://example.com/sitemap-1.xml.gz}:clock",
				"get {https://example.com/sitemap-2.xml.gz}:clock",
				"get {https://example.com/sitemap-3.xml.gz}:clock",
				"get {https://example.com/sitemap.atom}:clock",
				"get {https://example.com/sitemap_index.xml@e934a84adb052768}:clock",
				"get {https://example.com/sitemap-2.xml.gz}:copy",
				"get {https://example.com/sitemap.atom}:copy",
				"get {https://example.com/sitemap_index.xml@e934a84adb052768}:copy",
				"incr {https://example.com/}:gen",
				"lock {https://example.com/}:lock:born",
				"lock {https://example.com/sitemap-2.xml.gz}:lock",
				"lock {https://example.com/sitemap.atom}:lock",
				"lock {https://example.com/sitemap_index.xml@e934a84adb052768}:lock",
				"publish {https://example.com/}:changes",
				"set {https://example.com/}:born",
				"set {https://example.com/sitemap-2.xml.gz}:clock",
				"set {https://example.com/sitemap.atom}:clock",
				"set {https://example.com/sitemap_index.xml@e934a84adb052768}:clock",
				"set {https://example.com/sitemap-2.xml.gz}:copy",
				"set {https://example.com/sitemap.atom}:copy",
				"set {https://example.com/sitemap_index.xml@e934a84adb052768}:copy",
				"subscribe {https://example.com/}:changes",
				"unlock {https://example.com/}:lock:born",
				"unlock {https://example.com/sitemap-2.xml.gz}:lock",
				"unlock {https://example.com/sitemap.atom}:lock",
				"unlock {https://example.com/sitemap_index.xml@e934a84adb052768}:lock",
			},
			[]string{
				"built sitemap-2.xml.gz",
				"built sitemap.atom",
				"built sitemap_index.xml",
			})
	})
}
