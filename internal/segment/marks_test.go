package segment

import "testing"

// TestMarks: marks count from the copy the last build made; a change said
// otherwise, or a build that never says what it made, leaves the next
// build without marks it can trust; marks said during a build are the
// next build's.
func TestMarks(t *testing.T) {
	var m Marks[string]
	m.Mark("p", []int{1}) // never built: nothing kept
	if tk := m.Take("p"); tk.Marked || tk.OK {
		t.Fatalf("a page never built has marks: %+v", tk)
	}
	// the first build (tk above, lost): make one that ends
	b := m.Take("p")
	m.Built("p", b, 10)
	m.Mark("p", []int{2, 3, -1, MaxSegments})
	b = m.Take("p")
	if !b.OK || b.Base != 10 || len(b.Segs) != 2 || !b.Segs[2] || !b.Segs[3] {
		t.Fatalf("marks after a build: %+v", b)
	}
	m.Mark("p", []int{4}) // during the build: the next one's
	m.Built("p", b, 11)
	next := m.Take("p")
	if !next.OK || next.Base != 11 || len(next.Segs) != 1 || !next.Segs[4] {
		t.Fatalf("marks said during a build: %+v", next)
	}
	m.Mark("p", []int{5})
	m.Unknown("p") // an Invalidate of the page while next runs
	m.Built("p", next, 12)
	if tk := m.Take("p"); tk.OK || !tk.Marked {
		t.Fatalf("after Unknown: %+v", tk)
	}
	var none *Marks[string]
	none.Mark("p", []int{1})
	none.Unknown("p")
	none.Built("p", none.Take("p"), 1)
}
