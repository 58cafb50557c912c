package crawllog

import (
	"strings"
	"sync/atomic"
	"unsafe"
)

// The column of a request on a keep-alive connection, remembered by the
// connection. net/http sets the RemoteAddr of every request a connection
// carries to one string, made once when the connection is accepted (for
// HTTP/1 and HTTP/2 alike), so the requests of a connection share its
// data pointer. A slot of connMemo keeps that string itself, with the
// User-Agent last sent on the connection and the column the two gave. As
// the slot holds the string, its memory cannot be reused for another
// string while it is stored, and Go strings do not change: the same
// pointer and length is the same address text. (A RemoteAddr made with
// package unsafe over a buffer that is written again would break this,
// as it breaks any map keyed by it; net/http's, and the adapters' that
// set RemoteAddr by formatting an address, are ordinary strings.) The column is a pure
// function of the User-Agent and the address (the ranges are read once,
// in New), so a slot never goes stale; the User-Agent is compared whole,
// so a connection that changes it gets the new one's column.
//
// A hit costs a multiplication, a few loads and the User-Agent's
// comparison, with no hash of either string. A miss (a new connection,
// a middleware that sets RemoteAddr afresh for each request, a request
// whose connection's slot another took) takes the memos of who.go,
// and writes nothing unless it stores: a slot is replaced at most once a
// second, so a stream of addresses that never repeat allocates at most
// connMemoSize entries a second, and a miss costs no locked instruction.

// connMemoSize is the number of connections remembered: 2 KiB of slots,
// and for each connection stored its address text (at most maxAddrLen
// bytes) and a copy of its User-Agent (at most maxUALen).
const (
	connMemoBits = 8
	connMemoSize = 1 << connMemoBits
)

// connMemo is a direct-mapped table of connections by the data pointer of
// their RemoteAddr. Its methods are safe for concurrent use: a slot holds
// an immutable connEntry, published atomically.
type connMemo struct {
	slots [connMemoSize]atomic.Pointer[connEntry]
	gen   atomic.Uint64 // the entries of an older generation are stale (forget)
}

type connEntry struct {
	addr string // the request's RemoteAddr itself, not a copy: its pointer is the key
	ua   string // a copy of the User-Agent (as slotOf reads it: at most maxUALen bytes)
	c    Slot
	sec  int64  // the Unix second it was stored in
	gen  uint64 // connMemo.gen when it was
}

// slot is the slot of the address text at p: the top bits of a
// multiplicative (Fibonacci) hash of the pointer.
func (m *connMemo) slot(p *byte) *atomic.Pointer[connEntry] {
	return &m.slots[uint64(uintptr(unsafe.Pointer(p)))*0x9e3779b97f4a7c15>>(64-connMemoBits)]
}

// at returns the slot of the connection whose RemoteAddr is addr, the
// entry in it (nil if none; maybe another connection's) and the current
// generation.
func (m *connMemo) at(addr string) (*atomic.Pointer[connEntry], *connEntry, uint64) {
	sl := m.slot(unsafe.StringData(addr))
	return sl, sl.Load(), m.gen.Load()
}

// holds reports whether e is the entry of the connection whose
// RemoteAddr is addr (the same string, not only the same bytes), stored
// in the generation gen.
func (e *connEntry) holds(addr string, gen uint64) bool {
	return unsafe.StringData(e.addr) == unsafe.StringData(addr) && len(e.addr) == len(addr) && e.gen == gen
}

// get returns the column remembered for the connection whose RemoteAddr
// is addr, if its last User-Agent was ua.
func (m *connMemo) get(addr, ua string) (Slot, bool) {
	_, e, gen := m.at(addr)
	if e != nil && e.ua == ua && e.holds(addr, gen) {
		return e.c, true
	}
	return 0, false
}

// forget makes every entry stale: a verdict changed (reverse DNS
// confirmed an address), which the entries cannot tell.
func (m *connMemo) forget() { m.gen.Add(1) }

// miss remembers in sl, whose entry was e in the generation gen (at),
// that the request from addr with the User-Agent ua, made at the Unix
// second sec, is of column c, unless sl was stored in this second
// already.
func (m *connMemo) miss(sl *atomic.Pointer[connEntry], e *connEntry, gen uint64, addr, ua string, c Slot, sec int64) {
	if addr == "" || len(addr) > maxAddrLen {
		return
	}
	if e != nil && e.sec >= sec && e.gen == gen {
		return
	}
	sl.Store(&connEntry{addr: addr, ua: strings.Clone(ua), c: c, sec: sec, gen: gen}) // the User-Agent copied: it may be the caller's buffer
}
