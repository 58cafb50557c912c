// Package extsort sorts more fixed-size records than memory should hold:
// records are kept in a buffer of a set size, and each time it fills, it
// is sorted and written to a temporary file as a run; reading merges the
// runs. What it holds in memory is the buffer, whatever the number of
// records.
package extsort

import (
	"bufio"
	"container/heap"
	"errors"
	"io"
	"iter"
	"os"
	"slices"
)

// Codec is how a record is compared and written: Size bytes on disk,
// Put writes one into b (len Size), Get reads it back.
type Codec[T any] struct {
	Size    int
	Put     func(b []byte, v T)
	Get     func(b []byte) T
	Compare func(a, b T) int
}

// Sorter collects records and yields them sorted. It is not safe for
// concurrent use. Close removes its temporary file.
type Sorter[T any] struct {
	codec   Codec[T]
	max     int    // records held in memory before a run is written
	dir     string // where the temporary file goes; "" means os.TempDir()
	buf     []T
	file    *os.File // the runs, one after another; nil before the first
	runs    []int64  // the number of records of each run, in file order
	written int64    // bytes in file
	n       int64    // records added
	sorted  bool     // buf is sorted and there is no run: All need not sort
}

// New returns a Sorter that holds at most maxBytes of records in memory
// (by Codec.Size a record; at least one record), and writes its runs to a temporary file in dir.
func New[T any](c Codec[T], maxBytes int64, dir string) *Sorter[T] {
	return &Sorter[T]{codec: c, max: int(max(1, maxBytes/int64(c.Size))), dir: dir}
}

// Add adds a record; when the buffer is full it is written as a run first.
func (s *Sorter[T]) Add(v T) error {
	if len(s.buf) == s.max {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if len(s.buf) == cap(s.buf) { // grow by doubling, never past max
		buf := make([]T, len(s.buf), min(max(2*cap(s.buf), 1024), s.max))
		copy(buf, s.buf)
		s.buf = buf
	}
	s.buf = append(s.buf, v)
	s.n++
	s.sorted = false
	return nil
}

// Len is the number of records added.
func (s *Sorter[T]) Len() int64 { return s.n }

// Runs is the number of runs written to disk.
func (s *Sorter[T]) Runs() int { return len(s.runs) }

// Bytes is what the buffer holds in memory, by its capacity.
func (s *Sorter[T]) Bytes() int64 { return int64(cap(s.buf)) * int64(s.codec.Size) }

// spill sorts the buffer and appends it to the file as a run.
func (s *Sorter[T]) spill() error {
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "sitemap-extsort-*")
		if err != nil {
			return err
		}
		s.file = f
	}
	slices.SortFunc(s.buf, s.codec.Compare)
	w := bufio.NewWriterSize(io.NewOffsetWriter(s.file, s.written), 256<<10)
	rec := make([]byte, s.codec.Size)
	for _, v := range s.buf {
		s.codec.Put(rec, v)
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	s.runs = append(s.runs, int64(len(s.buf)))
	s.written += int64(len(s.buf)) * int64(s.codec.Size)
	s.buf = s.buf[:0]
	return nil
}

// All yields every record added, in order; on a read error it yields
// the error and stops. It may be called again, and records may be added
// between calls.
func (s *Sorter[T]) All() iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if len(s.runs) == 0 {
			if !s.sorted {
				slices.SortFunc(s.buf, s.codec.Compare)
				s.sorted = true
			}
			for _, v := range s.buf {
				if !yield(v, nil) {
					return
				}
			}
			return
		}
		var zero T
		if len(s.buf) > 0 {
			if err := s.spill(); err != nil {
				yield(zero, err)
				return
			}
		}
		m := &merge[T]{cmp: s.codec.Compare}
		var off int64
		for _, n := range s.runs {
			bytes := n * int64(s.codec.Size)
			r := &run[T]{codec: s.codec, r: bufio.NewReaderSize(io.NewSectionReader(s.file, off, bytes), int(min(bytes, 32<<10))), rec: make([]byte, s.codec.Size), left: n}
			off += bytes
			if ok, err := r.next(); err != nil {
				yield(zero, err)
				return
			} else if ok {
				m.runs = append(m.runs, r)
			}
		}
		heap.Init(m)
		for m.Len() > 0 {
			r := m.runs[0]
			if !yield(r.cur, nil) {
				return
			}
			ok, err := r.next()
			if err != nil {
				yield(zero, err)
				return
			}
			if ok {
				heap.Fix(m, 0)
			} else {
				heap.Pop(m)
			}
		}
	}
}

// Close removes the temporary file and forgets the records.
func (s *Sorter[T]) Close() error {
	s.buf, s.runs, s.n, s.written = nil, nil, 0, 0
	if s.file == nil {
		return nil
	}
	name := s.file.Name()
	err := s.file.Close()
	s.file = nil
	return errors.Join(err, os.Remove(name))
}

// run reads one sorted run back.
type run[T any] struct {
	codec Codec[T]
	r     *bufio.Reader
	rec   []byte
	left  int64
	cur   T
}

func (r *run[T]) next() (bool, error) {
	if r.left == 0 {
		return false, nil
	}
	if _, err := io.ReadFull(r.r, r.rec); err != nil {
		return false, err
	}
	r.left--
	r.cur = r.codec.Get(r.rec)
	return true, nil
}

// merge is a min-heap of runs by their current record.
type merge[T any] struct {
	runs []*run[T]
	cmp  func(a, b T) int
}

func (m *merge[T]) Len() int           { return len(m.runs) }
func (m *merge[T]) Less(i, j int) bool { return m.cmp(m.runs[i].cur, m.runs[j].cur) < 0 }
func (m *merge[T]) Swap(i, j int)      { m.runs[i], m.runs[j] = m.runs[j], m.runs[i] }
func (m *merge[T]) Push(x any)         { m.runs = append(m.runs, x.(*run[T])) }
func (m *merge[T]) Pop() any {
	r := m.runs[len(m.runs)-1]
	m.runs = m.runs[:len(m.runs)-1]
	return r
}
