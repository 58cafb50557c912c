package strmemo

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// counted is f(s) = len(s), counting its calls.
type counted struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *counted) f(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[s]++
	return len(s)
}

func stored[V any](m *Memo[V]) (n int) {
	for i := range m.slots {
		if m.slots[i].e.Load() != nil {
			n++
		}
	}
	return n
}

// TestGet: a string is computed on its first two sightings and stored on
// the second; then it is remembered. A string longer than maxLen is
// computed each time.
func TestGet(t *testing.T) {
	m := New[int](64, 10)
	var c counted
	for range 5 {
		if got := m.Get("googlebot", c.f); got != 9 {
			t.Fatalf("Get = %d, want 9", got)
		}
	}
	if n := c.calls["googlebot"]; n != 2 {
		t.Errorf("f called %d times for 5 Gets, want 2", n)
	}
	long := strings.Repeat("x", 11)
	for range 3 {
		if got := m.Get(long, c.f); got != 11 {
			t.Fatalf("Get = %d, want 11", got)
		}
	}
	if n := c.calls[long]; n != 3 {
		t.Errorf("f called %d times for a string past maxLen, want 3", n)
	}
	if n := stored(m); n != 1 {
		t.Errorf("%d strings stored, want 1", n)
	}
}

// TestCollisions: with one slot, every string shares it. Each is still
// given its own value; the one stored is the last seen twice in a row.
func TestCollisions(t *testing.T) {
	m := New[int](1, 100)
	if len(m.slots) != 1 {
		t.Fatalf("%d slots, want 1", len(m.slots))
	}
	var c counted
	seq := []string{"a", "bb", "a", "bb", "a", "a", "a", "ccc", "a", "ccc", "ccc", "ccc", "a"}
	for i, s := range seq {
		if got := m.Get(s, c.f); got != len(s) {
			t.Fatalf("%d: Get(%q) = %d, want %d", i, s, got, len(s))
		}
	}
	// a and bb alternate: neither is stored. a misses at 0, 2, 4 and 5
	// (stored there), hits at 6 and 8 (ccc missed once between: a
	// stays), misses at 12 (ccc stored at 9).
	if c.calls["a"] != 5 || c.calls["bb"] != 2 || c.calls["ccc"] != 2 {
		t.Errorf("calls %v, want a 5, bb 2, ccc 2", c.calls)
	}
	if e := m.slots[0].e.Load(); e == nil || e.key != "ccc" {
		t.Errorf("stored %+v, want ccc", e)
	}
}

// TestSameEnds: strings of one length that differ only between their
// first and last 16 bytes share a slot, and each keeps its own value.
func TestSameEnds(t *testing.T) {
	m := New[string](256, 512)
	a := "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/133.0"
	b := "Mozilla/5.0 (X11; Linux i686;   Gecko/20100101 Firefox/133.0"
	if len(a) != len(b) || m.hash(a) != m.hash(b) {
		t.Fatalf("%q and %q: lengths %d, %d; hashes differ", a, b, len(a), len(b))
	}
	upper := func(s string) string { return strings.ToUpper(s) }
	for i, s := range []string{a, a, a, b, b, b, a, b, a} {
		if got := m.Get(s, upper); got != strings.ToUpper(s) {
			t.Fatalf("%d: Get(%q) = %q", i, s, got)
		}
	}
}

// TestUniqueStrings: strings that never repeat allocate nothing and store
// nothing; the memory is the table's whatever the number of strings.
func TestUniqueStrings(t *testing.T) {
	m := New[int](256, 512)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "Mozilla/5.0 (random " + strconv.FormatUint(rand.Uint64(), 36) + ")"
	}
	i := 0
	allocs := testing.AllocsPerRun(len(keys)-1, func() { m.Get(keys[i], func(s string) int { return len(s) }); i++ })
	if allocs != 0 {
		t.Errorf("%v allocations per unique string, want 0", allocs)
	}
	if n := stored(m); n != 0 {
		t.Errorf("%d unique strings stored, want 0", n)
	}
}

// TestBounded: a million strings, each asked about twice in a row, fill
// at most the table's slots, each with a string no longer than maxLen.
func TestBounded(t *testing.T) {
	m := New[int](100, 40) // 128 slots
	for i := range 1_000_000 {
		s := strings.Repeat("y", i%50) + strconv.Itoa(i)
		for range 2 {
			if got := m.Get(s, func(s string) int { return len(s) }); got != len(s) {
				t.Fatalf("Get(%q) = %d", s, got)
			}
		}
	}
	if len(m.slots) != 128 {
		t.Fatalf("%d slots, want 128", len(m.slots))
	}
	n := 0
	for i := range m.slots {
		if e := m.slots[i].e.Load(); e != nil {
			n++
			if len(e.key) > 40 || e.val != len(e.key) {
				t.Errorf("slot %d holds %q → %d", i, e.key, e.val)
			}
		}
	}
	if n == 0 || n > 128 {
		t.Errorf("%d strings stored, want 1–128", n)
	}
}

// TestConcurrent: goroutines asking about strings that share few slots
// always get each string's own value (run with -race).
func TestConcurrent(t *testing.T) {
	m := New[int](2, 100)
	keys := []string{"", "a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg"}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20_000 {
				s := keys[r.IntN(len(keys))]
				if r.IntN(4) == 0 {
					s = keys[g] // runs of one string get stored
				}
				if got := m.Get(s, func(s string) int { return len(s) }); got != len(s) {
					t.Errorf("Get(%q) = %d", s, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkGet is a hit: a crawler's User-Agent, and an address with its
// port (RemoteAddr).
func BenchmarkGet(b *testing.B) {
	for name, s := range map[string]string{
		"ua":   "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"addr": "192.0.2.1:443",
	} {
		b.Run(name, func(b *testing.B) {
			m := New[int](256, 512)
			f := func(s string) int { return len(s) }
			m.Get(s, f)
			m.Get(s, f)
			b.ReportAllocs()
			for b.Loop() {
				m.Get(s, f)
			}
		})
	}
}
