// Package strmemo remembers the values of a function of short strings
// that come back over and over (a crawler's User-Agent), in a table of
// fixed size: its memory does not grow whatever strings it is asked
// about, and a string asked about once allocates nothing.
//
// The table is direct-mapped: a string has one slot, chosen by a seeded
// hash. A slot holds one immutable entry (the whole string and its value),
// published atomically, so readers take no lock. A string is stored on
// its second sighting in a row at its slot, so a stream of strings that
// never repeat makes no garbage; two strings that share a slot replace
// each other, and the one not stored is computed each time, never
// confused with the other (the whole string is compared).
package strmemo

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Memo is a fixed-size memo of a function of strings. Its methods are
// safe for concurrent use. Make one with New.
type Memo[V any] struct {
	seed   maphash.Seed
	maxLen int
	shift  uint // 64 - log2(len(slots))
	slots  []slot[V]
}

type slot[V any] struct {
	e    atomic.Pointer[entry[V]]
	seen atomic.Uint64 // the hash of the last string that missed here
}

type entry[V any] struct {
	key string
	val V
}

// New makes a memo of size slots (rounded up to a power of two, at least
// 1) that remembers strings of at most maxLen bytes; longer ones are
// computed each time.
func New[V any](size, maxLen int) *Memo[V] {
	bits := uint(0)
	for 1<<bits < size {
		bits++
	}
	return &Memo[V]{seed: maphash.MakeSeed(), maxLen: maxLen, shift: 64 - bits, slots: make([]slot[V], 1<<bits)}
}

// Get returns f(s): the value remembered for s, or f's, which it
// remembers if s is the string that last missed at its slot. f must be a
// pure function of s.
func (m *Memo[V]) Get(s string, f func(string) V) V {
	if len(s) > m.maxLen {
		return f(s)
	}
	h := maphash.String(m.seed, s)
	sl := &m.slots[h>>m.shift] // the top bits; none for one slot (a shift by 64 is 0)
	if e := sl.e.Load(); e != nil && e.key == s {
		return e.val
	}
	v := f(s)
	if sl.seen.Swap(h) == h {
		sl.e.Store(&entry[V]{key: strings.Clone(s), val: v}) // a copy: s may be the caller's buffer
	}
	return v
}
