package check

import (
	"fmt"
	"slices"
)

// tree holds what the rules across files need: where each URL was first
// seen, and the alternates of the URLs that have some. Memory grows with
// the URLs of the tree, one map entry each.
type tree struct {
	files []string            // names of the files, by index
	seen  map[string]int32    // loc → index of the first file listing it
	dups  []Finding           // URLs listed again
	alts  map[string][]string // loc → alternate hrefs
	where map[string]int32    // loc → file of its alternates
}

func newTree() tree {
	return tree{seen: map[string]int32{}, alts: map[string][]string{}, where: map[string]int32{}}
}

// merge adds the URLs of a checked file. The caller holds the lock.
func (t *tree) merge(f *file) {
	i := int32(len(t.files))
	t.files = append(t.files, f.name)
	for _, loc := range f.locs {
		if j, ok := t.seen[loc]; ok {
			where := "earlier in this file"
			if j != i {
				where = "in " + t.files[j]
			}
			fd := NewFinding("loc-duplicate", f.name, fmt.Sprintf("%s is listed again (first %s)", cut(loc), where))
			fd.URL = loc
			t.dups = append(t.dups, fd)
			continue
		}
		t.seen[loc] = i
	}
	for loc, hrefs := range f.alts {
		t.alts[loc] = hrefs
		t.where[loc] = i
	}
}

// findings returns the duplicates and the alternates that are not
// returned: A lists B, B is in the tree, and B does not list A.
func (t *tree) findings() []Finding {
	out := t.dups
	var locs []string
	for loc := range t.alts {
		locs = append(locs, loc)
	}
	slices.Sort(locs)
	for _, a := range locs {
		for _, b := range t.alts[a] {
			if b == a {
				continue
			}
			if _, listed := t.seen[b]; !listed {
				continue // B is not in the tree: nothing to compare with
			}
			if !slices.Contains(t.alts[b], a) {
				fd := NewFinding("hreflang-reciprocal", t.files[t.where[a]], fmt.Sprintf("%s lists %s as an alternate, which does not list it back", cut(a), cut(b)))
				fd.URL = a
				out = append(out, fd)
			}
		}
	}
	return out
}
