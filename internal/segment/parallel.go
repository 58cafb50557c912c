package segment

// A cold build's segments are compressed by helpers, goroutines of their
// own, when the process has a core to spare: segment n goes to helper
// n mod k, so the encoder writes on while the segments before are
// compressed, and with several helpers segments are compressed side by
// side. A core is spare while fewer helpers run in the whole process than
// GOMAXPROCS less one; a build that finds none compresses in its own
// goroutine, as with GOMAXPROCS 1: builds running side by side already
// use the cores, and helpers would only add copies and hand-offs.

import (
	"runtime"
	"sync"

	"github.com/freshmap/sitemap/internal/gzsplice"
)

// maxHelpers bounds the helpers of one build.
const maxHelpers = 3

// chunkSize is the largest piece of the stream handed to a helper.
const chunkSize = 64 << 10

// helperQueue is the pieces a helper may have waiting: the encoder waits
// when its helper is that far behind, so a build holds at most
// maxHelpers·helperQueue chunks.
const helperQueue = 4

var (
	spareOnce sync.Once
	spare     chan struct{} // a token a helper holds while it runs
	chunks    = sync.Pool{New: func() any { return new([chunkSize]byte) }}
)

func spareCores() chan struct{} {
	spareOnce.Do(func() {
		n := runtime.GOMAXPROCS(0)
		if n == 1 {
			n = 0 // no core to overlap with: the copies and hand-offs would only add work
		}
		spare = make(chan struct{}, n)
		for range n {
			spare <- struct{}{}
		}
	})
	return spare
}

// result is a segment a helper compressed, or its error.
type result struct {
	z   *gzsplice.Segment
	err error
}

// op is a piece of a segment for a helper, or the end of the segment
// (res set), whose result it fills.
type op struct {
	data *[chunkSize]byte
	n    int
	res  *result
	unit bool // a unit of the segment ends
}

// helper compresses the segments given to it, in order.
type helper struct {
	ops   chan op
	level int
	units bool // segments are cut into units (gzsplice.NewChainWriter)
}

func (h *helper) run(wg *sync.WaitGroup) {
	defer wg.Done()
	var sw *gzsplice.SegmentWriter
	var err error
	for o := range h.ops {
		if o.unit {
			if sw != nil {
				sw.EndUnit()
			}
			continue
		}
		if o.res == nil {
			if sw == nil && err == nil && h.units {
				sw, err = gzsplice.NewChainWriter(h.level)
			} else if sw == nil && err == nil {
				sw, err = gzsplice.NewSegmentWriter(h.level)
			}
			if sw != nil {
				sw.Write(o.data[:o.n])
			}
			chunks.Put(o.data)
			continue
		}
		switch {
		case err != nil:
			o.res.err = err
		case sw == nil:
			o.res.z, o.res.err = gzsplice.NewSegment(nil, h.level)
		default:
			o.res.z, o.res.err = sw.Close()
		}
		sw, err = nil, nil
	}
	if sw != nil { // ended before its segment: its compressor back to the pool
		sw.Close()
	}
}

// helpers are a build's helpers: those it could start when it began.
type helpers struct {
	hs   []*helper
	wg   sync.WaitGroup
	n    int // the segment being streamed
	done bool
}

// startHelpers starts up to maxHelpers helpers, one per spare core;
// nil if there is none. With units, segments are cut into units.
func startHelpers(level int, units bool) *helpers {
	sp := spareCores()
	var h *helpers
	for range maxHelpers {
		select {
		case <-sp:
		default:
			return h
		}
		if h == nil {
			h = &helpers{}
		}
		hp := &helper{ops: make(chan op, helperQueue), level: level, units: units}
		h.hs = append(h.hs, hp)
		h.wg.Add(1)
		go hp.run(&h.wg)
	}
	return h
}

// write hands p, bytes of the segment being streamed, to its helper.
func (h *helpers) write(p []byte) {
	hp := h.hs[h.n%len(h.hs)]
	for len(p) > 0 {
		c := chunks.Get().(*[chunkSize]byte)
		n := copy(c[:], p)
		hp.ops <- op{data: c, n: n}
		p = p[n:]
	}
}

// endUnit ends a unit of the segment being streamed.
func (h *helpers) endUnit() { h.hs[h.n%len(h.hs)].ops <- op{unit: true} }

// end ends the segment being streamed; its result comes at wait.
func (h *helpers) end() *result {
	r := &result{}
	h.hs[h.n%len(h.hs)].ops <- op{res: r}
	h.n++
	return r
}

// wait ends the helpers, once their work is done, and gives their cores
// back.
func (h *helpers) wait() {
	if h == nil || h.done {
		return
	}
	h.done = true
	for _, hp := range h.hs {
		close(hp.ops)
	}
	h.wg.Wait()
	for range h.hs {
		spare <- struct{}{}
	}
}
