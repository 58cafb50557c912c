package lrucache

import "testing"

type item struct{ name string }

// held is a value whose cost can grow, as an entry's forms make it.
type held struct {
	e            *item
	cost, copies int64
}

func (h *held) Entry() *item    { return h.e }
func (h *held) Cost() int64     { return h.cost }
func (h *held) CopyCost() int64 { return h.copies }

func newCache(t *testing.T, budget int64, entries int) (*Cache[string, *item, *held], map[string]int64) {
	t.Helper()
	counted := map[string]int64{}
	c := New[string, *item, *held](budget, entries, func(k string, docs int, bytes int64) { counted[k] += bytes })
	return c, counted
}

// TestBudget: adding past the byte budget evicts the oldest; a value
// larger than the budget is not held; the count always sums to Usage.
func TestBudget(t *testing.T) {
	c, counted := newCache(t, 100, 10)
	a, b, big := &held{e: &item{"a"}, cost: 40}, &held{e: &item{"b"}, cost: 40}, &held{e: &item{"big"}, cost: 101}
	c.Add("a", a)
	c.Add("b", b)
	c.Get("a") // b is now the oldest
	c.Add("c", &held{e: &item{"c"}, cost: 40})
	if _, ok := c.Peek("b"); ok {
		t.Error("b, the least recently used, was not evicted")
	}
	c.Add("big", big)
	if _, ok := c.Peek("big"); ok {
		t.Error("a value past the whole budget is held")
	}
	n, bytes := c.Usage()
	var sum int64
	for _, v := range counted {
		sum += v
	}
	if n != 2 || bytes != 80 || sum != 80 {
		t.Errorf("usage %d values %d bytes, counted %d", n, bytes, sum)
	}
}

// TestForms: a form is counted only when its entry is still the one
// held; Swap replaces only the entry it was asked to; copies keep to
// their share.
func TestForms(t *testing.T) {
	c, _ := newCache(t, 400, 10)
	e := &item{"e"}
	v := &held{e: e, cost: 50}
	c.Add("k", v)
	set := false
	c.Attach("k", &item{"other"}, 10, func() { set = true })
	if _, bytes := c.Usage(); !set || bytes != 50 {
		t.Errorf("a form of another entry: set %v, bytes %d", set, bytes)
	}
	c.Attach("k", e, 10, func() { v.cost += 10 })
	if _, bytes := c.Usage(); bytes != 60 {
		t.Errorf("a form of the held entry: bytes %d, want 60", bytes)
	}
	if c.MayCopy("k", e, 101) || !c.MayCopy("k", e, 100) {
		t.Error("copies are not held to a quarter of the budget")
	}
	if !c.AttachCopy("k", e, 100, func() bool { v.cost += 100; v.copies += 100; return true }) {
		t.Fatal("a copy that fits was refused")
	}
	if c.AttachCopy("k", e, 1, func() bool { return true }) {
		t.Error("a copy past the share was kept")
	}
	if !c.SwapForm("k", e, func() (bool, int64, int64) { v.cost -= 100; v.copies -= 100; return true, -100, -100 }) {
		t.Error("SwapForm of the held entry refused")
	}
	if bytes, _, copies, _ := c.Budget(); bytes != 60 || copies != 0 {
		t.Errorf("after SwapForm: %d bytes, %d of copies", bytes, copies)
	}
	w := &held{e: &item{"w"}, cost: 30}
	if got, _ := c.Swap("k", &item{"stale"}, func(*held) *held { return w }); got != v {
		t.Error("Swap replaced a value held for another entry")
	}
	if got, _ := c.Swap("k", e, func(*held) *held { return w }); got != w {
		t.Error("Swap did not replace the value held for old")
	}
	if _, bytes := c.Usage(); bytes != 30 {
		t.Errorf("after Swap: %d bytes, want 30", bytes)
	}
	c.SetCopies(false)
	if c.MayCopy("k", w.e, 1) {
		t.Error("a copy may be kept with copies off")
	}
}

// TestDisabled: a negative budget holds nothing and sets forms at once.
func TestDisabled(t *testing.T) {
	c, _ := newCache(t, -1, 10)
	e := &item{"e"}
	c.Add("k", &held{e: e, cost: 1})
	set := false
	c.Attach("k", e, 1, func() { set = true })
	if _, ok := c.Get("k"); ok || !set || c.Keys() != nil || c.MayCopy("k", e, 0) {
		t.Error("a disabled cache held something or kept a form back")
	}
}
