package sitemap

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/record"
	"github.com/freshmap/sitemap/internal/segment"
	"github.com/freshmap/sitemap/internal/testkit"
)

// spliceFleet is two or more replicas of one keyed page of 4,000 rows in
// four segments, sharing a Store.
type spliceFleet struct {
	t   *testing.T
	st  *memStore
	src *keyedSource
	clk *testkit.Clock
	// onChange, if set, is every replica's OnChange (change tracking).
	onChange func(Change)
}

const fleetPage = "/sitemap-p-1.xml.gz"

func newSpliceFleet(t *testing.T) *spliceFleet { return newSpliceFleetOf(t, 4000, 4) }

// newSpliceFleetOf is a spliceFleet of a page of rows in segs segments.
func newSpliceFleetOf(t *testing.T, rows int64, segs int) *spliceFleet {
	src := newKeyedSource(1, rows, segs)
	for k := range rows {
		src.set(k, keyedURL(k, 0))
	}
	return &spliceFleet{t: t, st: newMemStore(), src: src, clk: testkit.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))}
}

func (f *spliceFleet) replica() *Sitemap {
	sm := newTestSitemap(f.t, Config{Store: f.st, TTL: time.Hour, Now: f.clk.Now, OnChange: f.onChange}, Section{Name: "p", Source: f.src})
	get(sm, "/sitemap_index.xml")
	return sm
}

// change sets key to version v and tells sm by InvalidateKeys; it waits
// for sm's new copy, checks it is a full build's bytes, and returns the
// rows of the Source read for it.
func (f *spliceFleet) change(sm *Sitemap, key int64, v int) int64 {
	t := f.t
	t.Helper()
	k := pageKey(0, 1)
	before, _ := cachedEntry(sm, k)
	read := f.src.read.Load()
	f.src.set(key, keyedURL(key, v))
	if err := sm.InvalidateKeys("p", key); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if e, _ := cachedEntry(sm, k); e != before {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("no new copy after 10 s")
		}
	}
	settle(t, sm, k, fleetPage)
	read = f.src.read.Load() - read
	if got := get(sm, fleetPage).Body.Bytes(); !bytes.Equal(got, fullBytes(t, f.src, 1)) {
		t.Fatalf("key %d: the page differs from a full build", key)
	}
	return read
}

// stored returns the record of the page in the Store, decoded.
func (f *spliceFleet) stored() (string, *record.Doc) {
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	for key, v := range f.st.vals {
		if strings.Contains(key, "sitemap-p-1.xml.gz") && strings.HasSuffix(key, ":copy") {
			d, err := record.Decode(v)
			if err != nil {
				f.t.Fatal(err)
			}
			return key, d
		}
	}
	f.t.Fatal("no stored copy of the page")
	return "", nil
}

func (f *spliceFleet) store(key string, b []byte) {
	f.st.mu.Lock()
	f.st.vals[key] = b
	f.st.mu.Unlock()
}

// takeStored starts replica a and builds the page on it, then replica b,
// which must take a's copy from the Store: the same bytes, no Source read,
// and the segment table with it. It returns both, and b's entry.
func (f *spliceFleet) takeStored() (a, b *Sitemap, e *entry) {
	t := f.t
	t.Helper()
	a = f.replica()
	settle(t, a, pageKey(0, 1), fleetPage)
	b = f.replica()
	read := f.src.read.Load()
	if got := get(b, fleetPage).Body.Bytes(); !bytes.Equal(got, get(a, fleetPage).Body.Bytes()) {
		t.Fatal("the replicas serve other bytes")
	}
	if f.src.read.Load() != read {
		t.Fatal("the second replica read the Source: it did not take the stored copy")
	}
	if e, _ = cachedEntry(b, pageKey(0, 1)); e == nil || e.segs == nil || !e.segsStored {
		t.Fatal("the stored copy came without its segment table")
	}
	return a, b, e
}

// spliced changes key to version v through sm (change) and checks that sm
// spliced its copy: one segment's rows read, at most segRows, and one
// splice, no fallback, in its Stats so far.
func (f *spliceFleet) spliced(sm *Sitemap, who string, key int64, v int, segRows int64) {
	t := f.t
	t.Helper()
	if n := f.change(sm, key, v); n > segRows {
		t.Errorf("%s read %d rows, want one segment's %d", who, n, segRows)
	}
	if st := sm.Stats(); st.Splices != 1 || st.SpliceFallbacks != 0 {
		t.Errorf("%s: %d splices, %d fallbacks; want 1, 0", who, st.Splices, st.SpliceFallbacks)
	}
}

// TestFleetSplice: a replica that took a page's copy from the Store, not
// built it, splices it on InvalidateKeys (one segment read, counted in
// Splices, none in SpliceFallbacks), to the bytes of a full build; and
// the replica that built it first, having taken the spliced copy from the
// Store in turn, splices it next.
func TestFleetSplice(t *testing.T) {
	f := newSpliceFleet(t)
	a, b, _ := f.takeStored()
	f.spliced(b, "the replica that took the copy", 5, 1, 1000)
	// a takes b's spliced copy from the Store, then splices it.
	settle(t, a, pageKey(0, 1), fleetPage)
	f.spliced(a, "the first replica", 3999, 2, 1000)
}

// TestFleetSpliceUnits: TestFleetSplice of a page of 20,000 rows in two
// segments, each compressed as several units: their units travel in the
// stored table, check on the replica that took the copy (each unit alone
// after its dictionary), and it splices the page, reading one segment, to
// a full build's bytes; so does the first replica, from the spliced copy.
func TestFleetSpliceUnits(t *testing.T) {
	f := newSpliceFleetOf(t, 20000, 2)
	a, b, e := f.takeStored()
	for i, s := range e.segs.Body() {
		if n := len(s.Z.Units()); n < 2 {
			t.Fatalf("segment %d of 10,000 rows came in %d unit", i, n)
		}
	}
	f.spliced(b, "the replica that took the copy", 15, 1, 10000)
	settle(t, a, pageKey(0, 1), fleetPage)
	f.spliced(a, "the first replica", 19999, 2, 10000)
}

// TestFleetSpliceTracked: with change tracking (OnChange), a replica that
// took the copy from the Store reads its URL hashes back from its bytes
// and splices it too; the change it reports is the one row's (its
// location changed: the old one removed, the new one added).
func TestFleetSpliceTracked(t *testing.T) {
	f := newSpliceFleet(t)
	var mu sync.Mutex
	var changes []Change
	f.onChange = func(c Change) {
		mu.Lock()
		changes = append(changes, c)
		mu.Unlock()
	}
	_, b, _ := f.takeStored()
	mu.Lock()
	changes = nil
	mu.Unlock()
	f.spliced(b, "the replica that took the copy", 2100, 7, 1000)
	mu.Lock()
	defer mu.Unlock()
	added, removed := keyedURL(2100, 7).Loc, keyedURL(2100, 0).Loc
	if len(changes) != 1 || !slices.Equal(changes[0].Added, []string{added}) || !slices.Equal(changes[0].Removed, []string{removed}) ||
		len(changes[0].Changed) != 0 {
		t.Errorf("changes %+v, want %s added and %s removed alone", changes, added, removed)
	}
}

// TestFleetSpliceBadTable: a stored copy whose table is garbage, moves a
// segment boundary (its figures match the file, its bytes do not), or is
// missing (an older replica's record, of version 2) is served as it is,
// and a replica that took it reads the page whole on InvalidateKeys,
// counted in SpliceFallbacks, to a full build's bytes.
func TestFleetSpliceBadTable(t *testing.T) {
	for _, c := range []struct {
		name  string
		forge func(t *testing.T, d *record.Doc) []byte
	}{
		{"garbage", func(t *testing.T, d *record.Doc) []byte {
			d.Table = append([]byte{1}, bytes.Repeat([]byte{0x7f}, len(d.Table))...)
			return record.Encode(d)
		}},
		{"moved boundary", func(t *testing.T, d *record.Doc) []byte {
			tab, err := segment.ParseTable(d.Table, d.Main.Gz, d.Main.Hash)
			if err != nil {
				t.Fatal(err)
			}
			parts := make([]gzsplice.Parts, len(tab.Segs))
			for i, s := range tab.Segs {
				parts[i] = gzsplice.PartsOf(s.Z)
			}
			parts[1].Compressed -= 2
			parts[2].Compressed += 2
			if us := parts[1].Units; len(us) > 0 { // its last unit gives them to segment 2's first
				us[len(us)-1].Compressed -= 2
			}
			if us := parts[2].Units; len(us) > 0 {
				us[0].Compressed += 2
			}
			zs, err := gzsplice.Split(d.Main.Gz, parts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tab.Segs {
				tab.Segs[i].Z = zs[i]
			}
			d.Table = segment.AppendTable(nil, tab)
			return record.Encode(d)
		}},
		{"older replica", func(t *testing.T, d *record.Doc) []byte {
			d.Table = nil
			b := record.Encode(d) // as version 2 writes it
			if string(b[:len(record.MagicV2)]) != record.MagicV2 {
				t.Fatal("a record without a table is not of version 2")
			}
			return b
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newSpliceFleet(t)
			a := f.replica()
			settle(t, a, pageKey(0, 1), fleetPage)
			want := get(a, fleetPage).Body.Bytes()
			key, d := f.stored()
			f.store(key, c.forge(t, d))
			b := f.replica()
			read := f.src.read.Load()
			if got := get(b, fleetPage).Body.Bytes(); !bytes.Equal(got, want) {
				t.Fatal("the copy is not served as stored")
			}
			if f.src.read.Load() != read {
				t.Fatal("the replica read the Source: the copy was not taken")
			}
			if n := f.change(b, 5, 1); n < 4000 {
				t.Errorf("%d rows read, want the page's 4,000", n)
			}
			if st := b.Stats(); st.Splices != 0 || st.SpliceFallbacks != 1 {
				t.Errorf("%d splices, %d fallbacks; want 0, 1", st.Splices, st.SpliceFallbacks)
			}
		})
	}
}
