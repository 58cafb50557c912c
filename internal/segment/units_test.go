package segment

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/freshmap/sitemap/internal/gzsplice"
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
	p := newPage(8000, 0)
	cuts := []int{4000, 8000}
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
		t.Fatalf("4,000 entries in %d units (a mean of 512 wanted)", len(units))
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
		if !bytes.Equal(gunzip(t, gz), p.xml()) {
			t.Fatalf("%s: the spliced page reads back wrong", c.name)
		}
		if sp.Fresh() != c.fresh {
			t.Errorf("%s: %d units compressed, want %d", c.name, sp.Fresh(), c.fresh)
		}
		tab = next
	}
}
