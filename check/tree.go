package check

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/extsort"
)

// tree holds what the rules across files need, as fixed-size records that
// spill to disk past a bound (internal/extsort): a URL is its 63-bit hash
// (xxhash; two URLs of a 10,000,000-URL tree share one with a chance of
// about 5 in a million), where it was listed and where its text is, 24
// bytes; an alternate link is the hashes of its two ends, 16 bytes. No
// URL is kept as a string in memory past its own file: with a bound, the
// text of each loc goes to a temporary file, read back only for the
// duplicates' findings. Finish sorts and merges the records, so the rules
// cover every URL whatever the bound; what memory holds is the buffers,
// at most max bytes.
type tree struct {
	max       int64    // bound on the bytes held; 0 means none (nothing spills)
	dir       string   // where to spill
	linkBytes int64    // the links' share of max, and then the unreturned links'
	files     []string // names of the files, by index
	fileStart []uint32 // global index of each file's first URL
	urls      *extsort.Sorter[urlRec]
	links     *extsort.Sorter[pair] // by linkOrder
	text      texts
	err       error // the first failure to spill; the URLs after it are left out
	dropped   int   // URLs left out after err
}

// pair is a record of two numbers: an alternate link A → B, A ≠ B, as
// the two hashes in order, lo in k and hi in v with its top bit set when
// the link goes from hi to lo, so that a link and its return sort side by
// side (linkOrder); in Finish, a link not returned by one end, with the
// other end or where it is listed (pairOrder).
type pair struct{ k, v uint64 }

func pairOrder(a, b pair) int { return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.v, b.v)) }

func linkOrder(a, b pair) int {
	return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.v&hashMask, b.v&hashMask), cmp.Compare(a.v, b.v))
}

// pairCodec writes pairs, sorted by order.
func pairCodec(order func(a, b pair) int) extsort.Codec[pair] {
	return extsort.Codec[pair]{
		Size: 16,
		Put: func(b []byte, r pair) {
			binary.LittleEndian.PutUint64(b, r.k)
			binary.LittleEndian.PutUint64(b[8:], r.v)
		},
		Get: func(b []byte) pair {
			return pair{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
		},
		Compare: order,
	}
}

// urlRec is one listing of a URL.
type urlRec struct {
	h    uint64 // hash of the loc
	off  uint64 // where texts holds the loc
	seq  uint32 // global index, in the order files were merged
	line uint32 // of its <url>, 0 when unknown
}

const (
	hashMask = 1<<63 - 1
	backBit  = 1 << 63
)

var urlCodec = extsort.Codec[urlRec]{
	Size: 24,
	Put: func(b []byte, r urlRec) {
		binary.LittleEndian.PutUint64(b, r.h)
		binary.LittleEndian.PutUint64(b[8:], r.off)
		binary.LittleEndian.PutUint32(b[16:], r.seq)
		binary.LittleEndian.PutUint32(b[20:], r.line)
	},
	Get: func(b []byte) urlRec {
		return urlRec{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint32(b[16:]), binary.LittleEndian.Uint32(b[20:])}
	},
	Compare: func(a, b urlRec) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.seq, b.seq)) },
}

// newTree returns a tree that holds at most max bytes (0: no bound) and
// spills to dir ("" means os.TempDir()): a third for the URLs, the rest
// for the links.
func newTree(max int64, dir string) tree {
	urlBytes, linkBytes := int64(1<<62), int64(1<<62)
	if max > 0 {
		urlBytes, linkBytes = max/3, max-max/3
	}
	return tree{
		max:       max,
		dir:       dir,
		linkBytes: linkBytes,
		urls:      extsort.New(urlCodec, urlBytes, dir),
		links:     extsort.New(pairCodec(linkOrder), linkBytes, dir),
		text:      texts{toDisk: max > 0, dir: dir},
	}
}

func hash(s string) uint64 { return xxhash.Sum64String(s) & hashMask }

// merge adds the URLs and links of a checked file. The caller holds the lock.
func (t *tree) merge(f *file) {
	if t.err == nil {
		t.err = t.add(f)
	}
	if t.err != nil {
		t.dropped += len(f.locs)
	}
}

func (t *tree) add(f *file) error {
	t.files = append(t.files, f.name)
	t.fileStart = append(t.fileStart, uint32(t.urls.Len()))
	for k, loc := range f.locs {
		off, err := t.text.add(loc)
		if err != nil {
			return err
		}
		if err := t.urls.Add(urlRec{h: hash(loc), off: off, seq: uint32(t.urls.Len()), line: f.locLines[k]}); err != nil {
			return err
		}
	}
	for _, r := range f.links {
		if err := t.links.Add(r); err != nil {
			return err
		}
	}
	return nil
}

// link is the record of the alternate link from → to, two other URLs.
func link(from, to string) pair {
	r := pair{hash(from), hash(to)}
	if r.k > r.v {
		r = pair{r.v, r.k | backBit}
	}
	return r
}

// fileOf returns the index of the file that holds URL i.
func (t *tree) fileOf(i uint32) int {
	n, _ := slices.BinarySearch(t.fileStart, i+1)
	return n - 1
}

// place is where a URL is first listed.
type place struct{ seq, line uint32 }

// findings returns the duplicates, the links that are not returned (A
// lists B, B is in the tree, and B does not list A), and tree-bound when
// spilling failed. A link's finding names A's file and line, and B's.
// Every step streams sorted records, spilling past the bound as Add does:
//
//  1. the links, read once, give the links not returned, by B (in a tree
//     whose alternates are not listed, such as the demo's, every link);
//  2. the URLs, read once, give the duplicates, and those links whose B is
//     listed, with B's place, by A;
//  3. the URLs, read again, give A's place: a finding each.
//
// It removes the temporary files.
func (t *tree) findings() []Finding {
	defer t.close()
	var out []Finding
	byB := extsort.New(pairCodec(pairOrder), t.linkBytes/2, t.dir) // both fill in step 2
	byA := extsort.New(pairCodec(pairOrder), t.linkBytes/2, t.dir)
	defer byB.Close()
	defer byA.Close()
	err := t.forEachPair(func(lo, hi uint64, there, back bool) error {
		switch {
		case there && !back:
			return byB.Add(pair{hi, lo})
		case back && !there:
			return byB.Add(pair{lo, hi})
		}
		return nil
	})
	t.links.Close() // its buffer is no longer needed
	if err == nil {
		err = join(t, byB, func(p place, dups []urlRec) error {
			for _, d := range dups {
				fd, err := t.duplicate(d, p)
				if err != nil {
					return err
				}
				out = append(out, fd)
			}
			return nil
		}, func(pb place, r pair) error {
			return byA.Add(pair{r.v, uint64(pb.seq)<<32 | uint64(pb.line)})
		})
	}
	if err == nil {
		err = join(t, byA, nil, func(pa place, r pair) error {
			pb := place{uint32(r.v >> 32), uint32(r.v)}
			fd := NewFinding("hreflang-reciprocal", t.files[t.fileOf(pa.seq)],
				fmt.Sprintf("lists as an alternate the URL at %s, line %d, which does not list it back", t.files[t.fileOf(pb.seq)], pb.line))
			fd.Line = int(pa.line)
			out = append(out, fd)
			return nil
		})
	}
	if err = cmp.Or(t.err, err); err != nil {
		msg := fmt.Sprintf("the rules across files (duplicates, reciprocal links) could not spill past the bound of %d bytes to disk: %v", t.max, err)
		if t.dropped > 0 {
			msg += fmt.Sprintf("; %d URLs were left out", t.dropped)
		}
		out = append(out, NewFinding("tree-bound", "", msg))
	}
	return out
}

// join walks the URLs and the records of s (sorted by k, a URL hash)
// side by side: for each URL, url (when not nil) is called with its first
// place and its later listings, then match with that place and each
// record whose k is that URL. Records whose k is no URL are passed over.
func join(t *tree, s *extsort.Sorter[pair], url func(p place, dups []urlRec) error, match func(p place, r pair) error) error {
	next, stop := iter.Pull2(s.All())
	defer stop()
	r, rerr, ok := next()
	err := t.forEachURL(func(h uint64, p place, dups []urlRec) error {
		if url != nil {
			if err := url(p, dups); err != nil {
				return err
			}
		}
		for ; ok && rerr == nil && r.k <= h; r, rerr, ok = next() {
			if r.k == h {
				if err := match(p, r); err != nil {
					return err
				}
			}
		}
		return rerr
	})
	return cmp.Or(err, rerr)
}

// forEachPair calls fn once for each pair of URLs with a link between
// them, in either direction: there tells that lo lists hi, back that hi
// lists lo.
func (t *tree) forEachPair(fn func(lo, hi uint64, there, back bool) error) error {
	var cur pair
	there, back, have := false, false, false
	for r, err := range t.links.All() {
		if err != nil {
			return err
		}
		if have && (r.k != cur.k || r.v&hashMask != cur.v) {
			if err := fn(cur.k, cur.v, there, back); err != nil {
				return err
			}
			there, back = false, false
		}
		cur, have = pair{r.k, r.v & hashMask}, true
		if r.v&backBit != 0 {
			back = true
		} else {
			there = true
		}
	}
	if have {
		return fn(cur.k, cur.v, there, back)
	}
	return nil
}

// forEachURL calls fn once for each URL hash, with where it was first
// listed and its later listings.
func (t *tree) forEachURL(fn func(h uint64, first place, dups []urlRec) error) error {
	var first urlRec
	var dups []urlRec
	have := false
	for r, err := range t.urls.All() {
		if err != nil {
			return err
		}
		if have && r.h == first.h {
			dups = append(dups, r)
			continue
		}
		if have {
			if err := fn(first.h, place{first.seq, first.line}, dups); err != nil {
				return err
			}
		}
		first, dups, have = r, dups[:0], true
	}
	if have {
		return fn(first.h, place{first.seq, first.line}, dups)
	}
	return nil
}

// duplicate is the finding of d, a later listing of the URL first listed at p.
func (t *tree) duplicate(d urlRec, p place) (Finding, error) {
	loc, err := t.text.get(d.off)
	if err != nil {
		return Finding{}, err
	}
	fi := t.fileOf(d.seq)
	where := "earlier in this file"
	if pf := t.fileOf(p.seq); pf != fi {
		where = "in " + t.files[pf]
	}
	if p.line > 0 {
		where += fmt.Sprintf(", line %d", p.line)
	}
	fd := NewFinding("loc-duplicate", t.files[fi], fmt.Sprintf("%s is listed again (first %s)", cut(loc), where))
	fd.URL, fd.Line = loc, int(d.line)
	return fd, nil
}

// close removes the temporary files.
func (t *tree) close() {
	t.urls.Close()
	t.links.Close()
	t.text.close()
}

// texts holds the text of every loc, each as its length (uvarint) and its
// bytes: in memory, or, with toDisk, in a temporary file written through
// a small buffer.
type texts struct {
	toDisk bool
	dir    string
	mem    []byte
	file   *os.File
	w      *bufio.Writer
	n      uint64 // bytes written
}

// add stores s and returns where it lies.
func (x *texts) add(s string) (uint64, error) {
	off := x.n
	var head [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(head[:], uint64(len(s)))
	x.n += uint64(h + len(s))
	if !x.toDisk {
		x.mem = append(append(x.mem, head[:h]...), s...)
		return off, nil
	}
	if x.file == nil {
		f, err := os.CreateTemp(x.dir, "sitemap-check-locs-*")
		if err != nil {
			return 0, err
		}
		x.file, x.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	x.w.Write(head[:h])
	_, err := x.w.WriteString(s)
	return off, err
}

// get returns the text stored at off.
func (x *texts) get(off uint64) (string, error) {
	if !x.toDisk {
		n, h := binary.Uvarint(x.mem[off:])
		return string(x.mem[off+uint64(h) : off+uint64(h)+n]), nil
	}
	if err := x.w.Flush(); err != nil {
		return "", err
	}
	var head [binary.MaxVarintLen64]byte
	m, err := x.file.ReadAt(head[:], int64(off))
	if err != nil && err != io.EOF {
		return "", err
	}
	n, h := binary.Uvarint(head[:m])
	if h <= 0 {
		return "", errors.New("check: corrupt text of a loc")
	}
	b := make([]byte, n)
	_, err = x.file.ReadAt(b, int64(off)+int64(h))
	return string(b), err
}

func (x *texts) close() {
	x.mem = nil
	if x.file != nil {
		x.file.Close()
		os.Remove(x.file.Name())
		x.file = nil
	}
}
