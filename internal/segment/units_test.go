package segment

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestUnits: a segment cut by its Source is compressed as units; read
// again after a change, it compresses only the changed unit, and the
// next one too when the change is within the dictionary that unit was
// compressed with (the last DictSize bytes before it): a unit is never
// spliced after bytes other than those it was compressed after. Either
// way the page has the bytes and Sum of one built whole, and reads back
// as its XML.
func TestUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	p := newPage(16000, 0)
	cuts := []int{10000, 16000}
	cold := func() ([]byte, *Table) {
		w := NewWriter(6, true, nil)
		p.write(r, w, cuts, nil)
		gz, tab, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		return gz, tab
	}
	_, tab := cold()
	units := tab.Body()[0].Z.Units()
	if len(units) < 4 {
		t.Fatalf("10,000 entries in %d units (a mean of 1,024 wanted)", len(units))
	}
	// ends[i] is the index of the first entry after unit i.
	ends := make([]int, len(units))
	e := 0
	for i, u := range units {
		for n := int64(0); n < u.N; e++ {
			n += int64(len(entry(p.ids[e], p.vs[e], p.pad)))
		}
		ends[i] = e
	}
	head := -1 // a unit after the first longer than its successor's dictionary, and its first entry
	for i := 1; i < len(units)-1; i++ {
		if units[i].N > gzsplice.DictSize+1000 {
			head = i
			break
		}
	}
	if head < 0 {
		t.Fatal("no unit longer than a dictionary")
	}
	for _, c := range []struct {
		name  string
		entry int // the entry changed
		fresh int // units compressed
	}{
		{"in the next unit's dictionary", ends[0] - 2, 2},
		{"before the next unit's dictionary", ends[head-1], 1},
	} {
		p.vs[c.entry] += 3 // its lastmod: the same length, other bytes
		wantGz, wantTab := cold()
		if n := len(wantTab.Body()[0].Z.Units()); n != len(units) {
			t.Fatalf("%s: the change moved a unit's cut (%d units, %d before)", c.name, n, len(units))
		}
		body := tab.Body()
		sp := NewWriter(6, true, tab)
		p.write(r, sp, cuts, []*Seg{nil, &body[1]})
		gz, next, err := sp.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gz, wantGz) || next.Sum() != wantTab.Sum() {
			t.Fatalf("%s: the spliced page differs from the page built whole", c.name)
		}
		if !bytes.Equal(testkit.GunzipMember(t, gz), p.xml()) {
			t.Fatalf("%s: the spliced page reads back wrong", c.name)
		}
		if sp.Fresh() != c.fresh {
			t.Errorf("%s: %d units compressed, want %d", c.name, sp.Fresh(), c.fresh)
		}
		tab = next
	}
}

// TestUnitsProperty: a page cut by its Source into segments of several
// units goes through random inserts, updates and deletes, at units' edges
// and in the dictionaries their successors are compressed with too; after
// each, the touched segment read again (the others kept, or every one
// read again with the previous table) gives the bytes and Sum of the page
// built whole, which read back as its XML.
func TestUnitsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	p := newPage(12000, 0)
	cuts := []int{3000, 6000, 9000, 12000} // the entry each source segment ends before
	build := func(old *Table, kept []*Seg) ([]byte, *Table) {
		w := NewWriter(6, true, old)
		p.write(r, w, cuts, kept)
		gz, tab, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		return gz, tab
	}
	_, tab := build(nil, nil)
	steps := 40
	if testing.Short() {
		steps = 10
	}
	for step := range steps {
		seg := r.IntN(len(cuts))
		lo := 0
		if seg > 0 {
			lo = cuts[seg-1]
		}
		// The entries where the segment's units end, and those a
		// dictionary's length before.
		var edges []int
		e := lo
		for _, u := range tab.Body()[seg].Z.Units() {
			start := e
			for n := int64(0); n < u.N; e++ {
				n += int64(len(entry(p.ids[e], p.vs[e], p.pad)))
			}
			edges = append(edges, start, e-1, max(start, e-1-gzsplice.DictSize/len(entry(p.ids[start], 0, 0))))
		}
		at := func() int {
			if len(edges) > 0 && r.IntN(2) == 0 {
				return min(max(edges[r.IntN(len(edges))]+r.IntN(3)-1, lo), cuts[seg]-1)
			}
			return lo + r.IntN(cuts[seg]-lo)
		}
		for range 1 + r.IntN(3) {
			if cuts[seg] == lo {
				break
			}
			i := at()
			switch r.IntN(3) {
			case 0: // an insert after a key in the segment
				p.ids = append(p.ids[:i+1], append([]int{p.ids[i] + 1 + r.IntN(8)}, p.ids[i+1:]...)...)
				p.vs = append(p.vs[:i+1], append([]int{step}, p.vs[i+1:]...)...)
				for s := seg; s < len(cuts); s++ {
					cuts[s]++
				}
			case 1: // a delete
				p.ids, p.vs = append(p.ids[:i], p.ids[i+1:]...), append(p.vs[:i], p.vs[i+1:]...)
				for s := seg; s < len(cuts); s++ {
					cuts[s]--
				}
			default: // an update: another lastmod
				p.vs[i] += 1 + r.IntN(5)
			}
		}
		wantGz, wantTab := build(nil, nil)
		var gz []byte
		var next *Table
		if r.IntN(4) == 0 { // read whole, with the previous table
			gz, next = build(tab, nil)
		} else {
			body := tab.Body()
			kept := make([]*Seg, len(body))
			for i := range body {
				if i != seg {
					kept[i] = &body[i]
				}
			}
			gz, next = build(tab, kept)
		}
		if !bytes.Equal(gz, wantGz) || next.Sum() != wantTab.Sum() {
			t.Fatalf("step %d: the rebuilt page differs from the page built whole", step)
		}
		if !bytes.Equal(testkit.GunzipMember(t, gz), p.xml()) {
			t.Fatalf("step %d: the page reads back wrong", step)
		}
		tab = next
	}
}
