package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/record"
	"github.com/freshmap/sitemap/internal/segment"
)

// recordEntry builds an index entry of three files with two sections,
// and a page entry with sums, through the Sitemap, so every field a
// record keeps is set as a build sets it.
func recordEntries(t *testing.T) (page, index *entry, clock func(docKey) fileClock) {
	t.Helper()
	st := newMemStore()
	sm := newTestSitemap(t, Config{Store: st, OnChange: func(Change) {}},
		Section{Name: "a", Source: newFake(250, 50)}, Section{Name: "b", Source: newFake(100, 50)})
	get(sm, "/sitemap-a-2.xml.gz")
	page, _ = cachedEntry(sm, pageKey(0, 2))
	index, _ = cachedEntry(sm, indexKey)
	if page == nil || index == nil || len(page.sums) == 0 || len(index.pages) != 2 {
		t.Fatalf("no entries to encode: %v %v", page, index)
	}
	index.more = []*entry{page, page} // an index of three files, as past 50,000 pages
	return page, index, sm.docs.clocks.state
}

func TestRecordRoundTrip(t *testing.T) {
	page, index, clock := recordEntries(t)
	for name, e := range map[string]*entry{"page": page, "index": index} {
		k := pageKey(0, 2)
		if e == index {
			k = indexKey
		}
		got, clocks, err := decodeRecord(k, encodeRecord(k, e, clock))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same := func(field string, a, b any) {
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: decoded %v, want %v", name, field, a, b)
			}
		}
		same("gz", got.gz, e.gz)
		same("hash", got.hash, e.hash)
		same("level", got.level, e.level)
		same("lastMod", got.lastMod.UnixNano(), e.lastMod.UnixNano())
		same("built", got.built.UnixNano(), e.built.UnixNano())
		same("etags", [][]string{got.etagFile, got.etagGzip, got.etagPlain, got.gzLen}, [][]string{e.etagFile, e.etagGzip, e.etagPlain, e.gzLen})
		same("size", got.size, e.size)
		same("gen", got.gen, e.gen)
		same("info", got.info.Version+got.info.LastMod.String(), e.info.Version+e.info.LastMod.String())
		same("sums", got.sums, []urlSum(nil)) // not stored: read back from the gzip bytes
		if e == page {
			back, err := sumsOf(got.gz)
			same("sums read back", back, e.sums)
			same("sums read back, error", err, nil)
		}
		same("clock", clocks[0].k, k)
		same("clocks", len(clocks), 1+len(e.more)+pagesOf(e))
		for _, kc := range clocks {
			if clockString(kc.c) != clockString(clock(kc.k)) {
				t.Errorf("%s: clock of %v decoded as %s, want %s", name, kc.k, clockString(kc.c), clockString(clock(kc.k)))
			}
		}
		same("files", got.files(), e.files())
		for i := 2; i <= e.files(); i++ {
			same("file gz", got.file(i).gz, e.file(i).gz)
		}
		same("pages", len(got.pages), len(e.pages))
		for s := range e.pages {
			for j := range e.pages[s] {
				same("page", got.pages[s][j].Number, e.pages[s][j].Number)
			}
		}
	}
}

// pagesOf is the number of pages an index entry lists.
func pagesOf(e *entry) int {
	n := 0
	for _, ps := range e.pages {
		n += len(ps)
	}
	return n
}

func clockString(c fileClock) string {
	return c.at.UTC().String() + c.served.UTC().String() + string(rune(c.hash%1000)) + c.version + map[bool]string{true: "b"}[c.built]
}

// TestRecordGarbage: a record cut anywhere, or with any byte changed,
// or something else altogether, does not decode.
func TestRecordGarbage(t *testing.T) {
	_, index, clock := recordEntries(t)
	b := encodeRecord(indexKey, index, clock)
	for n := range len(b) {
		if _, _, err := decodeRecord(indexKey, b[:n]); !errors.Is(err, errRecord) {
			t.Fatalf("cut at %d of %d: %v", n, len(b), err)
		}
	}
	for i := 0; i < len(b); i += 1 + len(b)/2000 {
		c := bytes.Clone(b)
		c[i] ^= 0x20
		if _, _, err := decodeRecord(indexKey, c); !errors.Is(err, errRecord) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
	}
	for _, v := range []string{"", "OK", "1", record.Magic, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"} {
		if _, _, err := decodeRecord(indexKey, []byte(v)); !errors.Is(err, errRecord) {
			t.Errorf("%q: %v", v, err)
		}
	}
	if _, err := decodeMessage([]byte{9, 1, 2}); err == nil {
		t.Error("a message of an unknown kind decodes")
	}
	m := &message{kind: msgChanged, from: 3, gen: 4, hash: 5, names: []string{"sitemap-a-1.xml.gz", "sitemap_index.xml"}}
	if got, err := decodeMessage(m.encode()); err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("message round trip: %+v %v", got, err)
	}
}

// FuzzRecord: whatever a store returns, decoding it neither panics nor
// allocates past the value's size, and a value that decodes is a record
// whose encoding decodes to the same record.
func FuzzRecord(f *testing.F) {
	st := newMemStore()
	sm, err := New(Config{BaseURL: "https://example.com", Store: st, OnChange: func(Change) {}},
		Section{Name: "a", Source: newFake(120, 50)}, Section{Name: "b", Source: newFake(60, 50)})
	if err != nil {
		f.Fatal(err)
	}
	defer sm.Close()
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-a-1.xml.gz", "/sitemap-b-2.xml.gz"} {
		get(sm, p)
	}
	tables := 0
	for _, v := range st.vals {
		f.Add(v)
		if d, err := record.Decode(v); err == nil && d.Table != nil {
			tables++
		}
	}
	if tables == 0 {
		f.Fatal("no stored page came with its segment table")
	}
	f.Add([]byte(record.Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] == 'S' && len(b) > 12 {
			// Make the checksum right, so the fuzzer reaches the decoder.
			body := b[:len(b)-8]
			binary.LittleEndian.PutUint64(b[len(b)-8:], xxhash.Sum64(body))
		}
		e, clocks, err := decodeRecord(indexKey, b)
		if err != nil {
			return
		}
		if e.segs != nil {
			// A table that came with the copy tiles its bytes; one whose
			// segments all check reads back the copy's data.
			if !bytes.Equal(gzsplice.Join(nil, segZs(e.segs)), e.gz) {
				t.Fatal("a decoded table does not join to its copy")
			}
			if e.segs.Check(nil) == nil {
				var data []byte
				for _, s := range e.segs.Segs {
					data = append(data, gunzipOrNil(s.Z.Member())...)
				}
				if want := gunzipOrNil(e.gz); want == nil || !bytes.Equal(data, want) {
					t.Fatal("a table that checks reads back other data than its copy")
				}
			}
		}
		once := encodeRecord(indexKey, e, clockOf(clocks))
		again, clocks, err := decodeRecord(indexKey, once)
		if err != nil {
			t.Fatalf("a decoded record, encoded, does not decode: %v", err)
		}
		if twice := encodeRecord(indexKey, again, clockOf(clocks)); !bytes.Equal(twice, once) {
			t.Fatalf("a record changed through an encoding: %d bytes, then %d", len(once), len(twice))
		}
	})
}

// segZs are the segments of t.
func segZs(t *segment.Table) []*gzsplice.Segment {
	zs := make([]*gzsplice.Segment, len(t.Segs))
	for i := range t.Segs {
		zs[i] = t.Segs[i].Z
	}
	return zs
}

// gunzipOrNil is the data of gz, nil if it does not read back.
func gunzipOrNil(gz []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return b
}

// clockOf returns the clock function of the clocks a record carried (the
// last one of a key, which the encoding writes for every mention of it).
func clockOf(clocks []keyClock) func(docKey) fileClock {
	m := make(map[docKey]fileClock, len(clocks))
	for _, kc := range clocks {
		m[kc.k] = kc.c
	}
	return func(k docKey) fileClock { return m[k] }
}
