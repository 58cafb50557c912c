package sitemap

import (
	"bytes"
	"testing"
	"time"
)

// TestFleetSpliceHeardLate: a change another replica said, whose effect
// here waits for its turn (hearing: at most one a second per document),
// is known to the segment marks at once. Replica b heard a change of the
// page just before (its turn is taken), then another one, of segment 1,
// that waits; then b is told a change of segment 2 and splices the page.
// Had it spliced its copy, which lacks the change of segment 1, under a
// generation after that change, every replica would have taken it from
// the Store as current and served it without the change until the TTL (an
// hour here). It reads the page whole instead, and both replicas serve a
// whole build's bytes.
func TestFleetSpliceHeardLate(t *testing.T) {
	f := newSpliceFleet(t)
	a := f.replica()
	settle(t, a, pageKey(0, 1), fleetPage)
	b := f.replica()
	get(b, fleetPage)
	served := func(sm *Sitemap, want []byte) bool { return bytes.Equal(get(sm, fleetPage).Body.Bytes(), want) }
	wait := func(what string, ok func() bool) {
		t.Helper()
		for start := time.Now(); !ok(); time.Sleep(time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: not after 5 s", what)
			}
		}
	}
	f.src.set(5, keyedURL(5, 1)) // segment 0
	if err := a.InvalidateKeys("p", 5); err != nil {
		t.Fatal(err)
	}
	want := fullBytes(t, f.src, 1)
	wait("b serves the first change", func() bool { return served(b, want) })
	heardAt := time.Now()
	f.src.set(1500, keyedURL(1500, 1)) // segment 1: b hears it a second after the first
	if err := a.InvalidateKeys("p", 1500); err != nil {
		t.Fatal(err)
	}
	want = fullBytes(t, f.src, 1)
	wait("a serves the second change", func() bool { return served(a, want) })
	f.src.set(2500, keyedURL(2500, 1)) // segment 2
	if err := b.InvalidateKeys("p", 2500); err != nil {
		t.Fatal(err)
	}
	if time.Since(heardAt) >= hearEvery {
		t.Skipf("the machine is too slow: b heard the second change %v after the first, when it took effect at once", time.Since(heardAt))
	}
	want = fullBytes(t, f.src, 1)
	for start := time.Now(); !served(a, want) || !served(b, want); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 3*hearEvery {
			t.Fatalf("after %v, a serves the last rows: %v; b: %v", time.Since(start), served(a, want), served(b, want))
		}
	}
}
