package segment

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/freshmap/sitemap/internal/idlecpu"
)

// cold builds p whole, with no previous copy, on a machine whose cores
// to spare idlecpu is made to say, cut by its content or, with cuts, by
// its Source (then in units); it returns the page and the helpers'
// figures: helpers started, segments handed to them.
func cold(t *testing.T, p page, free float64, cuts []int) (gz []byte, k, handed int) {
	t.Helper()
	defer idlecpu.Fix(free)()
	w := NewWriter(6, cuts != nil, nil)
	p.write(rand.New(rand.NewPCG(7, 8)), w, cuts, nil)
	if w.par != nil {
		k = w.par.k
	}
	gz, _, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w.par != nil {
		handed = w.par.hand
	}
	return gz, k, handed
}

// procs sets GOMAXPROCS to n for the test.
func procs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// TestHelpers: a cold page with cores to spare, cut by its content or by
// its Source (in units), is compressed by helpers as well as by the
// build, and has the bytes of one compressed by the
// build alone (no core spare, or GOMAXPROCS 1); helpers are started per
// whole idle core beyond the build's own, at most GOMAXPROCS less one and
// maxHelpers; every build gives its cores back.
func TestHelpers(t *testing.T) {
	for _, cuts := range [][]int{nil, {5000, 10000, 10000, 25000, 40000}} {
		checkHelpers(t, newPage(40000, 0), cuts)
	}
}

func checkHelpers(t *testing.T, p page, cuts []int) {
	procs(t, 1)
	alone, k, _ := cold(t, p, 4, cuts)
	if k != 0 {
		t.Fatalf("GOMAXPROCS 1: %d helpers", k)
	}
	procs(t, 8)
	for _, c := range []struct {
		free float64
		k    int
	}{{0, 0}, {0.9, 0}, {1.5, 0}, {1.8, 1}, {2, 1}, {3.7, 2}, {8, maxHelpers}} {
		gz, k, handed := cold(t, p, c.free, cuts)
		if k != c.k {
			t.Errorf("%v cores free: %d helpers, want %d", c.free, k, c.k)
		}
		if !bytes.Equal(gz, alone) {
			t.Fatalf("%v cores free, %d helpers: other bytes than the build's alone", c.free, k)
		}
		if (handed > 0) != (k > 0) {
			t.Errorf("%v cores free, %d helpers: %d segments handed", c.free, k, handed)
		}
		if n := lanes.Load(); n != 0 {
			t.Fatalf("%v cores free: %d cores held after the build", c.free, n)
		}
	}
	procs(t, 2)
	if _, k, _ := cold(t, p, 8, cuts); k != 1 {
		t.Errorf("GOMAXPROCS 2: %d helpers, want 1", k)
	}
}

// TestHelpersShared: a build counts the cores the process's other builds
// and their helpers hold now; an aborted build, cut short in a segment,
// gives its cores back.
func TestHelpersShared(t *testing.T) {
	procs(t, 4)
	defer idlecpu.Fix(3)()
	p := newPage(40000, 0)
	half := page{ids: p.ids[:20000], vs: p.vs[:20000]}
	r := rand.New(rand.NewPCG(9, 10))
	a := NewWriter(6, false, nil)
	half.write(r, a, nil, nil) // under way, past parFrom
	a.Write(entry(1, 1, 0))    // a segment begun
	if a.par == nil || a.par.k != 2 {
		t.Fatalf("the first build: %v, want 2 helpers", a.par != nil && a.par.k == 2)
	}
	b := NewWriter(6, false, nil)
	half.write(r, b, nil, nil)
	if b.par == nil || b.par.k != 0 {
		t.Fatalf("a build beside one holding 3 of 4 cores has helpers (or is not counted: %v)", b.par == nil)
	}
	if n := lanes.Load(); n != 4 {
		t.Fatalf("%d cores held, want 4", n)
	}
	a.Abort()
	b.Abort()
	if n := lanes.Load(); n != 0 {
		t.Fatalf("%d cores held after Abort", n)
	}
}

// TestHelpersUnknown: where idle cores are unknown a build has no
// helpers and is not counted.
func TestHelpersUnknown(t *testing.T) {
	procs(t, 4)
	if _, ok := idlecpu.Free(); ok {
		t.Skip("idle cores known here")
	}
	if h := startHelpers(6, false); h != nil {
		t.Fatalf("helpers with idle cores unknown: %+v", h)
	}
}
