package gzsplice

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/testkit"
)

// chainOf compresses run cut at cuts into units, each with DictOf the one
// before, and chains them.
func chainOf(t *testing.T, run []byte, cuts []int, level int) (*Segment, []Unit) {
	t.Helper()
	var units []Unit
	var dict []byte
	start := 0
	for _, end := range append(cuts, len(run)) {
		if end <= start {
			continue
		}
		u, err := NewUnit(run[start:end], dict, level, xxhash.Sum64(run[start:end]))
		if err != nil {
			t.Fatal(err)
		}
		units = append(units, u)
		dict, start = DictOf(run[start:end]), end
	}
	return Chain(units), units
}

// TestChain: a run cut into units of every size, written through a
// ChainWriter in random pieces or chained from units compressed apart,
// has the same bytes, CRC, size and Sum either way; it reads back alone
// (Member), and chained again from its own Units it is the same.
func TestChain(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	run := page(r, 4000) // about 400 KB
	for _, level := range []int{1, 5, 6, 9} {
		for _, cuts := range [][]int{{}, {0}, {10}, {DictSize - 1, DictSize + 1}, {50000, 50000, 120000, 300000}, {len(run)}, {1000, 2000, 3000, 200000}} {
			want, units := chainOf(t, run, cuts, level)
			w, err := NewChainWriter(level)
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for _, end := range append(cuts, len(run)) {
				for at < end {
					n := min(end-at, 1+r.IntN(3*DictSize))
					w.Write(run[at : at+n])
					at += n
				}
				w.EndUnit()
			}
			got, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.deflate, want.deflate) || got.crc != want.crc || got.n != want.n || got.sum != want.sum {
				t.Fatalf("level %d cuts %v: written and chained differ", level, cuts)
			}
			if !bytes.Equal(testkit.GunzipMember(t, got.Member()), run) {
				t.Fatalf("level %d cuts %v: reads back wrong", level, cuts)
			}
			if len(got.Units()) != len(units) || !bytes.Equal(Chain(got.Units()).deflate, got.deflate) || Chain(got.Units()).sum != got.sum {
				t.Fatalf("level %d cuts %v: %d units, %d chained; chained again differs", level, cuts, len(got.Units()), len(units))
			}
			if len(units) == 1 && got.sum != xxhash.Sum64(run) {
				t.Fatalf("level %d: one unit's Sum is not its run's", level)
			}
		}
	}
}

// TestStaleDictionary: a unit compressed after one predecessor and
// chained after another that differs in its last DictSize bytes decodes
// to other bytes (the hazard: its back-references reach into its
// dictionary), so a unit's reuse is keyed by its dictionary's sum too;
// compressed again with the new dictionary it reads back right.
func TestStaleDictionary(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	a, b := page(r, 1000), page(r, 1000)
	stale, err := NewUnit(b, DictOf(a), 6, xxhash.Sum64(b))
	if err != nil {
		t.Fatal(err)
	}
	a2 := append(bytes.Clone(a[:len(a)-DictSize]), page(r, 200)[:DictSize]...) // a's end changed, its length not
	first, _ := NewUnit(a2, nil, 6, xxhash.Sum64(a2))
	want := append(bytes.Clone(a2), b...)
	if DictSum(DictOf(a2)) == stale.Dict {
		t.Fatal("the changed dictionary has the stale one's sum")
	}
	bad := Chain([]Unit{first, stale}).Member()
	if got, err := readAll(bad); err == nil && bytes.Equal(got, want) {
		t.Fatal("a unit chained after another dictionary read back right: the test shows nothing")
	}
	fresh, _ := NewUnit(b, DictOf(a2), 6, xxhash.Sum64(b))
	if !bytes.Equal(testkit.GunzipMember(t, Chain([]Unit{first, fresh}).Member()), want) {
		t.Fatal("the unit compressed with its dictionary reads back wrong")
	}
	// A unit whose predecessor changed before its last DictSize bytes
	// keeps its dictionary, and reused it reads back right.
	a3 := append(page(r, 1), a[len(page(r, 1)):]...)
	if !bytes.Equal(DictOf(a3), DictOf(a)) {
		t.Fatal("a change at the start moved the dictionary")
	}
	first, _ = NewUnit(a3, nil, 6, xxhash.Sum64(a3))
	if !bytes.Equal(testkit.GunzipMember(t, Chain([]Unit{first, stale}).Member()), append(bytes.Clone(a3), b...)) {
		t.Fatal("a unit reused after an unchanged dictionary reads back wrong")
	}
}

// readAll reads one gzip member, or says why not (a stale unit may make
// the CRC or a distance fail).
func readAll(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	_, err = out.ReadFrom(zr)
	return out.Bytes(), err
}
