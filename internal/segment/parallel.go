package segment

// A cold build's segments are compressed side by side when the machine
// has a core to spare. The build's own goroutine (the encoder's) goes on
// compressing segments as they come, and hands others, whole, to helper
// goroutines: a segment is handed when, as its first bytes come, fewer
// segments wait for the helpers than queue for each; else the build
// compresses it itself, as it comes, with no copy. So a helper always has
// the next segment ready when it is done with one, the build never waits
// for a helper, and a segment is copied only to be handed. When the
// stream ends, the build takes back the segments no helper has started.
//
// Whether a core is spare is asked once a build, when its stream passes
// parFrom (segment.go): the cores other processes left to this one over
// the last 100 ms or so (internal/idlecpu), less this build's own and
// those the process's other builds and their helpers hold now, in whole
// cores (wholeCore of one idle counts as one); at most GOMAXPROCS less
// one helper in the process, and maxHelpers a build. A machine that other
// processes keep busy gets no helper, and its build costs what it costs
// with one core: the helpers' copies and hand-offs would only take CPU
// from the others. Where idle cores cannot be measured (not Linux), or
// with GOMAXPROCS 1, there are none.

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/idlecpu"
)

// maxHelpers bounds the helpers of one build.
const maxHelpers = 3

// queue is how many segments may wait for each helper: with one, a
// helper done with its segment sometimes finds none waiting while the
// build compresses a long one; the build takes back at the end any that
// no helper has started.
const queue = 2

// wholeCore is the share of a core that, idle, counts as a core to
// spare: the kernel counts in ticks of 10 ms, so a window of 100 ms tells
// a core's use to a tenth or so, and a quiet machine has a little work of
// its own.
const wholeCore = 0.75

// A segment buffer is made newBuf long, more than most segments (a
// mean of 4,096 entries, some 720 KB at 50,000 URLs), so that it seldom
// grows; one up to maxPooled is kept for reuse (a segment is at most
// MaxRun and an entry).
const (
	newBuf    = 1 << 20
	maxPooled = 8 << 20
)

var (
	lanes  atomic.Int64 // the cores the process's builds past parFrom hold now: theirs and their helpers'
	helped atomic.Int64 // builds that had helpers, since the process started
	bufs   = sync.Pool{New: func() any { b := make([]byte, 0, newBuf); return &b }}
)

// result is a segment compressed, or its error.
type result struct {
	z   *gzsplice.Segment
	err error
}

// job is a segment's bytes handed to a helper, where its result goes,
// and, for a segment cut into units, where in data each unit but the
// last ends.
type job struct {
	data  *[]byte
	res   *result
	units bool
	cuts  []int
}

// do compresses the job's segment and gives its buffer back.
func (j job) do(level int) {
	if j.units {
		j.res.z, j.res.err = chained(*j.data, j.cuts, level)
	} else {
		j.res.z, j.res.err = gzsplice.NewSegment(*j.data, level)
	}
	if cap(*j.data) <= maxPooled {
		*j.data = (*j.data)[:0]
		bufs.Put(j.data)
	}
}

// chained compresses data as a segment of units ending at cuts
// (gzsplice.NewChainWriter), as the build would have as it came.
func chained(data []byte, cuts []int, level int) (*gzsplice.Segment, error) {
	sw, err := gzsplice.NewChainWriter(level)
	if err != nil {
		return nil, err
	}
	at := 0
	for _, c := range cuts {
		sw.Write(data[at:c])
		sw.EndUnit()
		at = c
	}
	sw.Write(data[at:])
	return sw.Close()
}

// helpers are a build's helpers, and the segment being streamed.
type helpers struct {
	level int
	units bool     // segments are cut into units (gzsplice.NewChainWriter)
	cuts  []int    // the units' ends in buf
	k     int      // helpers started: none when no core is spare
	jobs  chan job // segments handed, not yet taken by a helper
	wg    sync.WaitGroup
	buf   *[]byte                 // the segment being gathered for a helper
	sw    *gzsplice.SegmentWriter // or the one being compressed here
	err   error                   // of starting sw
	open  bool                    // the segment being streamed has begun
	hand  int                     // segments handed to helpers
	res   []result                // the results, in blocks: a result does not move once handed out
	first [24]result              // the first block
	done  bool
}

// startHelpers counts the build's core among the process's and starts up
// to maxHelpers helpers, one per core to spare (none if there is none);
// nil with GOMAXPROCS 1 or where idle cores are not known: the build
// compresses alone, uncounted. With units, segments are cut into units.
func startHelpers(level int, units bool) *helpers {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return nil
	}
	free, ok := idlecpu.Free()
	if !ok {
		return nil
	}
	var k int
	for {
		held := lanes.Load()
		k = max(0, min(maxHelpers, n-1-int(held), int(free+(1-wholeCore)-1-float64(held))))
		if lanes.CompareAndSwap(held, held+1+int64(k)) {
			break
		}
	}
	h := &helpers{level: level, k: k, units: units}
	h.res = h.first[:0]
	if k > 0 {
		helped.Add(1)
		h.jobs = make(chan job, queue*k)
		h.wg.Add(k)
		for range k {
			go h.run()
		}
	}
	return h
}

// Helped is the number of builds that had helpers since the process
// started.
func Helped() int64 { return helped.Load() }

// run is a helper: it compresses the segments handed to it until the
// build ends.
func (h *helpers) run() {
	defer h.wg.Done()
	for j := range h.jobs {
		j.do(h.level)
	}
}

// write takes p, bytes of the segment being streamed: gathered for a
// helper if one will be free for it, else compressed here.
func (h *helpers) write(p []byte) {
	if !h.open {
		h.open = true
		if len(h.jobs) < cap(h.jobs) {
			h.buf = bufs.Get().(*[]byte)
		} else if h.units {
			h.sw, h.err = gzsplice.NewChainWriter(h.level)
		} else {
			h.sw, h.err = gzsplice.NewSegmentWriter(h.level)
		}
	}
	switch {
	case h.buf != nil:
		*h.buf = append(*h.buf, p...)
	case h.sw != nil:
		h.sw.Write(p)
	}
}

// endUnit ends a unit of the segment being streamed.
func (h *helpers) endUnit() {
	switch {
	case h.buf != nil:
		h.cuts = append(h.cuts, len(*h.buf))
	case h.sw != nil:
		h.sw.EndUnit()
	}
}

// end ends the segment being streamed: handed to a helper (its result
// comes at wait) or compressed here.
func (h *helpers) end() *result {
	if len(h.res) == cap(h.res) {
		h.res = make([]result, 0, len(h.first))
	}
	h.res = h.res[:len(h.res)+1]
	r := &h.res[len(h.res)-1]
	switch {
	case h.buf != nil: // never blocks: fewer than cap(jobs) wait, and only this goroutine adds
		h.jobs <- job{data: h.buf, res: r, units: h.units, cuts: h.cuts}
		h.buf, h.cuts = nil, nil
		h.hand++
	case h.sw != nil:
		r.z, r.err = h.sw.Close()
		h.sw = nil
	case h.err != nil:
		r.err = h.err
	default:
		r.z, r.err = gzsplice.NewSegment(nil, h.level)
	}
	h.open, h.err = false, nil
	return r
}

// wait ends the helpers, once the segments handed are compressed (those
// no helper has started, here), and gives the build's cores back; a
// segment cut short gives its compressor or buffer back.
func (h *helpers) wait() {
	if h == nil || h.done {
		return
	}
	h.done = true
	if h.sw != nil {
		h.sw.Close()
		h.sw = nil
	}
	if h.buf != nil {
		*h.buf = (*h.buf)[:0]
		bufs.Put(h.buf)
		h.buf, h.cuts = nil, nil
	}
	if h.k > 0 {
		close(h.jobs)
		for j := range h.jobs {
			j.do(h.level)
		}
		h.wg.Wait()
	}
	lanes.Add(-int64(1 + h.k))
}
