package crawllog

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// crawlCell is the fetches of a file by one column: their counts by
// status class, and the last one, packed (packFetch) with its bytes.
//
// A fetch is counted by an atomic add, and its last fetch is stored, under
// mu, only when it differs from the one stored, to the second: the same
// crawler fetching the file again within the second with the same answer
// stores nothing. A reader takes mu, so it sees a last fetch whole (its
// time, status, conditional flag and bytes are one fetch's), and every
// count only grows; but the counts and the last fetch are read apart, so
// a count may include a fetch whose last fetch is not stored yet.
type crawlCell struct {
	last   atomic.Uint64           // packFetch of the last fetch; 0 if never fetched
	bytes  atomic.Int64            // its body bytes
	counts [numStatus]atomic.Int64 // by statusClass: 200 first, so that a hit reads and adds in 24 bytes
	mu     sync.Mutex              // held to store last and bytes, and to read them together
}

// packFetch packs the time in seconds, status and conditional flag of a
// fetch into one word: a bit that is always set (so that 0 is none), the
// flag, 16 bits of status and the seconds above them, signed.
func packFetch(sec int64, cond bool, status int) uint64 {
	w := uint64(sec)<<18 | uint64(uint16(status))<<2 | 1
	if cond {
		w |= 2
	}
	return w
}

// unpackFetch is packFetch's inverse.
func unpackFetch(w uint64) (sec int64, cond bool, status int) {
	return int64(w) >> 18, w&2 != 0, int(uint16(w >> 2))
}

// store logs a fetch answered at the Unix second sec.
func (cell *crawlCell) store(sec int64, cond bool, status int, n int64) {
	cell.counts[statusClass(status)].Add(1)
	if w := packFetch(sec, cond, status); cell.last.Load() != w || cell.bytes.Load() != n {
		cell.storeLast(sec, w, n)
	} // else unchanged to the second
}

// storeLast stores w (packFetch of a fetch answered at sec) and n as the
// cell's last fetch, unless a later one is stored.
func (cell *crawlCell) storeLast(sec int64, w uint64, n int64) {
	cell.mu.Lock()
	if old := cell.last.Load(); old == 0 || int64(old)>>18 <= sec { // a fetch answered earlier, stored late, is not the last
		cell.last.Store(w)
		cell.bytes.Store(n)
	}
	cell.mu.Unlock()
}

// fetch returns the cell's last fetch and its count of fetches, with ok
// false if it has none.
func (cell *crawlCell) fetch() (f Fetch, ok bool) {
	cell.mu.Lock()
	w, n := cell.last.Load(), cell.bytes.Load()
	cell.mu.Unlock()
	if w == 0 {
		return f, false
	}
	sec, cond, status := unpackFetch(w)
	f = Fetch{Time: time.Unix(sec, 0), Status: status, Bytes: n, Conditional: cond}
	for i := range cell.counts {
		f.Fetches += cell.counts[i].Load()
	}
	return f, true
}

// statusClasses are the statuses counted apart; any other is "other".
var statusClasses = [...]int{200, 206, 304, 403, 412, 416, 500, 503}

const numStatus = len(statusClasses) + 1

func statusClass(code int) int {
	if code == http.StatusOK {
		return 0 // a hit's: statusClasses[0]
	}
	return otherStatusClass(code)
}

func otherStatusClass(code int) int {
	for i, c := range statusClasses {
		if c == code {
			return i
		}
	}
	return len(statusClasses)
}
