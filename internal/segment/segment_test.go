package segment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	prologue = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"
	epilogue = "</urlset>\n"
)

func entry(id, v int, pad int) []byte {
	return fmt.Appendf(nil, "<url><loc>https://shop.example.com/p/%d%s</loc><lastmod>2026-11-%02d</lastmod></url>\n", id, strings.Repeat("x", pad), 1+v%28)
}

// page is a page's entries; ids are their locations' numbers.
type page struct {
	ids, vs []int
	pad     int
}

// write feeds p to w as an encoder does: each entry told (Entry, when
// cut by source, then Ended) once it is in the encoder's buffer, the buffer written out at random points;
// cuts after the entries in srcCuts (by source); kept[i], if set, is
// kept in place of source segment i, whose entries are then not written.
func (p page) write(r *rand.Rand, w *Writer, srcCuts []int, kept []*Seg) {
	var pending []byte
	flush := func() {
		if len(pending) > 0 {
			w.Write(pending)
			pending = pending[:0]
		}
	}
	pending = append(pending, prologue...)
	total := int64(len(pending)) // the stream's length so far
	w.Start(total)
	seg := 0
	cutAt := func() int {
		if seg < len(srcCuts) {
			return srcCuts[seg]
		}
		return -1
	}
	for i := 0; i <= len(p.ids); i++ {
		for cutAt() == i {
			if kept != nil && kept[seg] != nil {
				w.Keep(*kept[seg])
			} else {
				w.Cut()
			}
			seg++
		}
		if i == len(p.ids) {
			break
		}
		if kept != nil && seg < len(kept) && kept[seg] != nil {
			continue // a kept segment's entries are not written
		}
		e := entry(p.ids[i], p.vs[i], p.pad)
		pending = append(pending, e...)
		total += int64(len(e))
		if w.BySource() {
			w.Entry(e, time.Date(2026, 11, 1+p.vs[i]%28, 0, 0, 0, 0, time.UTC))
		}
		w.Ended(total, fmt.Sprintf("https://shop.example.com/p/%d%s", p.ids[i], strings.Repeat("x", p.pad)))
		if r.IntN(50) == 0 {
			flush()
		}
	}
	w.EndBody()
	pending = append(pending, epilogue...)
	flush()
}

func (p page) xml() []byte {
	b := []byte(prologue)
	for i := range p.ids {
		b = append(b, entry(p.ids[i], p.vs[i], p.pad)...)
	}
	return append(b, epilogue...)
}

func newPage(n, pad int) page {
	p := page{pad: pad}
	for i := range n {
		p.ids, p.vs = append(p.ids, i*10), append(p.vs, 0)
	}
	return p
}

func build(t *testing.T, r *rand.Rand, p page, old *Table) ([]byte, *Table, int) {
	t.Helper()
	w := NewWriter(5, false, old)
	p.write(r, w, nil, nil)
	gz, tab, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return gz, tab, w.Fresh()
}

// TestContentCuts: a page cut by its content reads back whole, every
// body segment is whole entries, within MaxEntries and (but for its last
// entry) MaxRun, and the table's figures are the page's.
func TestContentCuts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, pad int }{{0, 0}, {1, 0}, {30000, 0}, {3000, 3000}} {
		p := newPage(c.n, c.pad)
		gz, tab, fresh := build(t, r, p, nil)
		if !bytes.Equal(testkit.GunzipMember(t, gz), p.xml()) {
			t.Fatalf("%d entries: the page reads back wrong", c.n)
		}
		if fresh != len(tab.Segs) || tab.URLs() != c.n || tab.Size() != int64(len(p.xml())) {
			t.Errorf("%d entries: %d fresh of %d segments, %d URLs, %d bytes", c.n, fresh, len(tab.Segs), tab.URLs(), tab.Size())
		}
		for i, s := range tab.Body() {
			run := testkit.GunzipMember(t, s.Z.Member())
			if !bytes.HasPrefix(run, []byte("<url>")) || !bytes.HasSuffix(run, []byte("</url>\n")) || bytes.Count(run, []byte("<url>")) != s.URLs {
				t.Fatalf("%d entries: body segment %d is not whole entries", c.n, i)
			}
			if s.URLs > MaxEntries || s.Z.Size() > MaxRun+int64(len(entry(0, 0, c.pad))) {
				t.Errorf("%d entries: body segment %d has %d entries, %d bytes", c.n, i, s.URLs, s.Z.Size())
			}
		}
		if c.n == 30000 && (len(tab.Body()) < 3 || len(tab.Body()) > 20) {
			t.Errorf("30,000 entries in %d segments (a mean of 4,096 wanted)", len(tab.Body()))
		}
		if c.pad == 3000 && len(tab.Body()) < 2 {
			t.Errorf("9 MB of entries in %d segment: MaxRun not kept", len(tab.Body()))
		}
	}
}

// TestContentCutsStable: after an entry is inserted, deleted or changed
// anywhere (first, last, inside), a build with the previous table
// compresses at most the two segments about it, and makes the bytes and
// Sum a build without it makes.
func TestContentCutsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := newPage(20000, 0)
	_, tab, _ := build(t, r, p, nil)
	for step := range 60 {
		at := []int{0, len(p.ids) - 1, r.IntN(len(p.ids))}[r.IntN(3)]
		switch r.IntN(3) {
		case 0:
			p.ids = append(p.ids[:at], append([]int{p.ids[at] + 1 + r.IntN(9)}, p.ids[at:]...)...)
			p.vs = append(p.vs[:at], append([]int{step}, p.vs[at:]...)...)
		case 1:
			p.ids, p.vs = append(p.ids[:at], p.ids[at+1:]...), append(p.vs[:at], p.vs[at+1:]...)
		default:
			p.vs[at] = step + 1
		}
		gz, next, fresh := build(t, r, p, tab)
		want, wtab, _ := build(t, r, p, nil)
		if !bytes.Equal(gz, want) || next.Sum() != wtab.Sum() {
			t.Fatalf("step %d: a build with the previous table differs from one without", step)
		}
		if fresh > 2 {
			t.Fatalf("step %d: %d segments compressed for one entry's change", step, fresh)
		}
		if next.Sum() == tab.Sum() {
			t.Fatalf("step %d: Sum did not move", step)
		}
		tab = next
	}
}

// TestKeep: a page cut by its Source's segments, rebuilt with some of
// them kept and the others written again, is the page built whole; an
// empty segment is a segment.
func TestKeep(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := newPage(3000, 0)
	cuts := []int{0, 700, 700, 1500, 3000} // five source segments, the second empty
	w := NewWriter(6, true, nil)
	p.write(r, w, cuts[1:], nil)
	gz, tab, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Body()) != 4 || tab.Body()[1].URLs != 0 || !tab.BySource {
		t.Fatalf("%d body segments (%+v)", len(tab.Body()), tab.Body())
	}
	p.vs[800] = 7 // a change in segment 2
	full := NewWriter(6, true, nil)
	p.write(r, full, cuts[1:], nil)
	wantGz, wantTab, err := full.Close()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(wantGz, gz) {
		t.Fatal("the change made the same bytes")
	}
	body := tab.Body()
	kept := []*Seg{&body[0], &body[1], nil, &body[3]}
	sp := NewWriter(6, true, tab)
	p.write(r, sp, cuts[1:], kept)
	gotGz, gotTab, err := sp.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotGz, wantGz) || gotTab.Sum() != wantTab.Sum() {
		t.Fatal("the spliced page differs from the page built whole")
	}
	if sp.Fresh() != 1 {
		t.Errorf("%d segments compressed, want 1", sp.Fresh())
	}
	if !bytes.Equal(testkit.GunzipMember(t, gotGz), p.xml()) {
		t.Error("the spliced page reads back wrong")
	}
}

// TestBadLevel: a level flate has not is an error of Close, not a panic.
func TestBadLevel(t *testing.T) {
	w := NewWriter(12, false, nil)
	newPage(10, 0).write(rand.New(rand.NewPCG(1, 1)), w, nil, nil)
	if _, _, err := w.Close(); err == nil {
		t.Error("level 12 taken")
	}
}
