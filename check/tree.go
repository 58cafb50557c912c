package check

import (
	"fmt"
	"slices"
	"sort"

	"github.com/cespare/xxhash/v2"
)

// tree holds what the rules across files need, in compact form: a 64-bit
// hash of each URL (xxhash; two URLs of a 10,000,000-URL tree share one
// with a chance of about 3 in a million) with where it was first listed,
// and each alternate link as the hashes of its two ends. A URL costs 20 to
// 26 bytes here (8 for its hash and 4 for its index in a sorted array, 4
// for its line, and the unsorted tail of recent hashes), and a link 16
// more; no URL is kept as a string past its own file. Past max bytes, the
// URLs of further files are not held, and Finish says so (tree-bound).
type tree struct {
	max       int64    // bound on the bytes held; 0 means none
	files     []string // names of the files, by index
	fileStart []uint32 // global index of each file's first URL
	lines     []uint32 // the line of each URL's <url>, by global index
	set       hashSet  // hash → global index of its first listing
	from, to  []uint64 // alternate links A → B, A ≠ B, as hashes
	dups      []Finding
	dropped   int // URLs of files not held, past max
}

func newTree(max int64) tree { return tree{max: max} }

func hash(s string) uint64 { return xxhash.Sum64String(s) }

// bytes is what the tree holds now, by the capacity of its arrays.
func (t *tree) bytes() int64 {
	return int64(cap(t.lines))*4 + int64(cap(t.from)+cap(t.to))*8 + t.set.bytes()
}

// merge adds the URLs of a checked file. The caller holds the lock.
func (t *tree) merge(f *file) {
	links := 0
	for _, a := range f.alts {
		links += len(a.hrefs)
	}
	if t.max > 0 && t.bytes()+int64(len(f.locs))*32+int64(links)*16 > t.max {
		t.dropped += len(f.locs)
		return
	}
	fi := len(t.files)
	t.files = append(t.files, f.name)
	t.fileStart = append(t.fileStart, uint32(len(t.lines)))
	for k, loc := range f.locs {
		i := uint32(len(t.lines))
		t.lines = append(t.lines, f.locLines[k])
		h := hash(loc)
		if j, ok := t.set.get(h); ok {
			where := "earlier in this file"
			if jf := t.fileOf(j); jf != fi {
				where = "in " + t.files[jf]
			}
			if l := t.lines[j]; l > 0 {
				where += fmt.Sprintf(", line %d", l)
			}
			fd := NewFinding("loc-duplicate", f.name, fmt.Sprintf("%s is listed again (first %s)", cut(loc), where))
			fd.URL, fd.Line = loc, int(f.locLines[k])
			t.dups = append(t.dups, fd)
			continue
		}
		t.set.put(h, i)
	}
	for _, a := range f.alts {
		ha := hash(a.loc)
		for _, b := range a.hrefs {
			if b != a.loc {
				t.from, t.to = append(t.from, ha), append(t.to, hash(b))
			}
		}
	}
}

// fileOf returns the index of the file that holds URL i.
func (t *tree) fileOf(i uint32) int {
	n, _ := slices.BinarySearch(t.fileStart, i+1)
	return n - 1
}

// findings returns the duplicates, the links that are not returned (A
// lists B, B is in the tree, and B does not list A), and tree-bound when
// some files were not held. A link's finding names A's file and line, and
// B's.
func (t *tree) findings() []Finding {
	out := t.dups
	sort.Sort(links{t})
	for k := range t.from {
		a, b := t.from[k], t.to[k]
		if k > 0 && a == t.from[k-1] && b == t.to[k-1] {
			continue // listed twice
		}
		jb, listed := t.set.get(b)
		if !listed || t.hasLink(b, a) {
			continue
		}
		ja, _ := t.set.get(a)
		fd := NewFinding("hreflang-reciprocal", t.files[t.fileOf(ja)],
			fmt.Sprintf("lists as an alternate the URL at %s, line %d, which does not list it back", t.files[t.fileOf(jb)], t.lines[jb]))
		fd.Line = int(t.lines[ja])
		out = append(out, fd)
	}
	if t.dropped > 0 {
		out = append(out, NewFinding("tree-bound", "", fmt.Sprintf("the rules across files (duplicates, reciprocal links) left out %d URLs: holding them would pass the bound of %d bytes", t.dropped, t.max)))
	}
	return out
}

// hasLink reports whether the sorted links hold a → b.
func (t *tree) hasLink(a, b uint64) bool {
	k := sort.Search(len(t.from), func(k int) bool {
		return t.from[k] > a || t.from[k] == a && t.to[k] >= b
	})
	return k < len(t.from) && t.from[k] == a && t.to[k] == b
}

// links sorts the tree's links by (from, to), in place.
type links struct{ t *tree }

func (l links) Len() int { return len(l.t.from) }
func (l links) Less(i, j int) bool {
	f := l.t.from
	return f[i] < f[j] || f[i] == f[j] && l.t.to[i] < l.t.to[j]
}
func (l links) Swap(i, j int) {
	l.t.from[i], l.t.from[j] = l.t.from[j], l.t.from[i]
	l.t.to[i], l.t.to[j] = l.t.to[j], l.t.to[i]
}

// hashSet maps 64-bit hashes to uint32s in about 12 bytes an entry: a
// sorted array searched by bisection, and a map of the recent entries,
// merged into the array when it grows past a quarter of it (so each entry
// is moved a few times in all).
type hashSet struct {
	keys   []uint64
	vals   []uint32
	recent map[uint64]uint32
}

func (s *hashSet) get(h uint64) (uint32, bool) {
	if v, ok := s.recent[h]; ok {
		return v, true
	}
	if k, ok := slices.BinarySearch(s.keys, h); ok {
		return s.vals[k], true
	}
	return 0, false
}

func (s *hashSet) put(h uint64, v uint32) {
	if s.recent == nil {
		s.recent = map[uint64]uint32{}
	}
	s.recent[h] = v
	if len(s.recent) >= max(1<<16, len(s.keys)/4) {
		s.flush()
	}
}

// flush merges the recent entries into the sorted arrays.
func (s *hashSet) flush() {
	if len(s.recent) == 0 {
		return
	}
	add := make([]uint64, 0, len(s.recent))
	for h := range s.recent {
		add = append(add, h)
	}
	slices.Sort(add)
	n := len(s.keys) + len(add)
	keys, vals := make([]uint64, n), make([]uint32, n)
	i, j := len(s.keys)-1, len(add)-1
	for k := n - 1; k >= 0; k-- { // from the end, larger first
		if j < 0 || i >= 0 && s.keys[i] > add[j] {
			keys[k], vals[k] = s.keys[i], s.vals[i]
			i--
		} else {
			keys[k], vals[k] = add[j], s.recent[add[j]]
			j--
		}
	}
	s.keys, s.vals = keys, vals
	clear(s.recent)
}

// bytes is what the set holds: 12 bytes an entry in the arrays, about 24
// in the map.
func (s *hashSet) bytes() int64 {
	return int64(cap(s.keys))*12 + int64(len(s.recent))*24
}
