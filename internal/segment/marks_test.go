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

// TestMarksAdopted: a copy taken from elsewhere becomes the base of a page
// never built here, and of one built, with no marks; not while a change
// is being said, while a build of the page is under way, or if it is not
// current.
func TestMarksAdopted(t *testing.T) {
	yes := func() bool { return true }
	var m Marks[string]
	m.Adopted("p", 7, yes)
	m.Mark("p", []int{1})
	if tk := m.Take("p"); !tk.OK || tk.Base != 7 || len(tk.Segs) != 1 {
		t.Fatalf("after a copy was adopted: %+v", tk)
	}
	// A build is under way (Take above): its copy is to be the base.
	m.Adopted("p", 8, yes)
	m.Mark("p", []int{2})
	if tk := m.Take("p"); tk.OK {
		t.Fatalf("adopted during a build: %+v", tk)
	}
	b := m.Take("q")
	m.Built("q", b, 1)
	m.Mark("q", []int{3})
	m.Adopted("q", 9, func() bool { return false })
	done := m.Saying()
	m.Adopted("q", 9, yes)
	done()
	if tk := m.Take("q"); !tk.OK || tk.Base != 1 || !tk.Segs[3] {
		t.Fatalf("adopted while not current, or while a change was said: %+v", tk)
	}
	m.Built("q", m.Take("q"), 2)
	m.Mark("q", []int{4})
	m.Adopted("q", 9, yes) // current: the marks before it are in it
	if tk := m.Take("q"); tk.Marked || tk.Base != 9 {
		t.Fatalf("after adopting a current copy: %+v", tk)
	}
	var none *Marks[string]
	none.Adopted("p", 1, yes)
	none.Saying()()
}
