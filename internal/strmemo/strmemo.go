// Package strmemo remembers the values of a function of short strings
// that come back over and over (a crawler's User-Agent), in a table of
// fixed size: its memory does not grow whatever strings it is asked
// about, and a string asked about once allocates nothing.
//
// The table is direct-mapped: a string has one slot, chosen by a seeded
// hash of its length and its first and last 16 bytes (the whole of a
// shorter one), cheap whatever its length. A slot holds one immutable entry (the whole string and its value),
// published atomically, so readers take no lock. A string is stored on
// its second sighting in a row at its slot, so a stream of strings that
// never repeat makes no garbage; two strings that share a slot replace
// each other, and the one not stored is computed each time, never
// confused with the other (the whole string is compared).
package strmemo

import (
	"hash/maphash"
	"math/bits"
	"strings"
	"sync/atomic"
)

// Memo is a fixed-size memo of a function of strings. Its methods are
// safe for concurrent use. Make one with New.
type Memo[V any] struct {
	seed   maphash.Seed // for strings under 8 bytes
	key    uint64       // the seed of longer ones
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
	seed := maphash.MakeSeed()
	return &Memo[V]{seed: seed, key: maphash.String(seed, "strmemo") | 1, maxLen: maxLen, shift: 64 - bits, slots: make([]slot[V], 1<<bits)}
}

// hash is a seeded hash of s's length and of its first and last 16 bytes.
// Strings that differ only in between share a slot (and so take turns in
// it); they are never confused: Get compares the whole string. One of 8
// to 15 bytes (an IPv4 address and port) is read as two words that
// overlap.
func (m *Memo[V]) hash(s string) uint64 {
	n := len(s)
	if n < 8 {
		return maphash.String(m.seed, s)
	}
	h := mix(m.key, uint64(n))
	if n < 16 {
		return mix(h^le64(s[:8]), le64(s[n-8:]))
	}
	h = mix(h^le64(s[:8]), le64(s[8:16]))
	return mix(h^le64(s[n-16:n-8]), le64(s[n-8:]))
}

// mix is a multiply-and-fold step (as wyhash's).
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^0xa0761d6478bd642f, b^0xe7037ed1a0b428db)
	return hi ^ lo
}

// le64 reads 8 bytes of s, little-endian.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Get returns f(s): the value remembered for s, or f's, which it
// remembers if s is the string that last missed at its slot. f must be a
// pure function of s.
func (m *Memo[V]) Get(s string, f func(string) V) V {
	if len(s) > m.maxLen {
		return f(s)
	}
	h := m.hash(s)
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
