package sitemap

import (
	"bytes"
	"time"

	"github.com/freshmap/sitemap/internal/record"
	"github.com/freshmap/sitemap/internal/segment"
)

// The record of a document in a Store: everything a replica needs to
// serve it and to answer conditional requests without building it (the
// gzip bytes, the validators' hash, the content clock, when it was built,
// its PageInfo, the store generation its build started at and the Store's
// era then), and what the next build needs to keep the clock going
// forward (the clock's state; for an index, every page's), and for a
// page its segment table, so that a replica that took the copy splices it
// as its builder would (internal/segment's wire form). The URL sums
// that derive changes are read back from the gzip bytes instead (sumsOf);
// a record from an older replica may still carry them, and they decode.
// The format, checked by xxhash, is internal/record's; this file
// translates an entry and its clocks to and from its plain data.

// errRecord is the error of decodeRecord for a value that is not a
// record of this version.
var errRecord = record.ErrRecord

// keyClock is the clock of one file, as a record carries it.
type keyClock struct {
	k docKey
	c fileClock
}

// encodeRecord returns the record of e, the copy of k, with the clocks
// clock gives: k's, and for an index those of its other files and of every
// page it lists.
func encodeRecord(k docKey, e *entry, clock func(docKey) fileClock) []byte {
	d := &record.Doc{
		Main: recordFile(e, clock(k)),
		Gen:  e.gen, Era: e.era,
		Info: record.Info{Number: e.info.Number, LastMod: e.info.LastMod, Version: e.info.Version},
	}
	if len(e.pages) > 0 {
		d.Pages = make([][]record.Page, len(e.pages))
		for i, ps := range e.pages {
			d.Pages[i] = make([]record.Page, len(ps))
			for j, p := range ps {
				d.Pages[i][j] = record.Page{
					Info:  record.Info{Number: p.Number, LastMod: p.LastMod, Version: p.Version},
					Clock: toRecordClock(clock(pageKey(i, p.Number))),
				}
			}
		}
	}
	if e.segs != nil {
		d.Table = segment.AppendTable(nil, e.segs)
	}
	if len(e.more) > 0 {
		d.More = make([]record.File, len(e.more))
		for i, f := range e.more {
			d.More[i] = recordFile(f, clock(indexFileKey(i+2)))
		}
	}
	return record.Encode(d)
}

func recordFile(e *entry, c fileClock) record.File {
	return record.File{Hash: e.hash, Level: e.level, LastMod: e.lastMod, Built: e.built, Clock: toRecordClock(c), Gz: e.gz}
}

func toRecordClock(c fileClock) record.Clock {
	return record.Clock{At: c.at, Served: c.served, Hash: c.hash, Built: c.built, Ungiven: c.ungiven, Version: c.version}
}

func fromRecordClock(c record.Clock) fileClock {
	return fileClock{at: c.At, served: c.Served, hash: c.Hash, built: c.Built, ungiven: c.Ungiven, version: c.Version}
}

// encodeClock returns the stored form of a page's clock.
func encodeClock(c fileClock) []byte { return record.EncodeClock(toRecordClock(c)) }

// decodeClock returns the clock encodeClock stored.
func decodeClock(b []byte) (fileClock, error) {
	c, err := record.DecodeClock(b)
	return fromRecordClock(c), err
}

// encodeStoredClock returns the stored form of a page's clock c, given in
// era (shared.setClock).
func encodeStoredClock(era time.Time, c fileClock) []byte {
	return record.EncodeStoredClock(era, toRecordClock(c))
}

// decodeStoredClock returns the era and the clock encodeStoredClock
// stored.
func decodeStoredClock(b []byte) (time.Time, fileClock, error) {
	era, c, err := record.DecodeStoredClock(b)
	return era, fromRecordClock(c), err
}

// decodeRecord returns the entry a record of k holds, and the clocks it
// carries. The entry shares no memory with b: its gzip bytes are copied,
// so that a cached copy does not keep the whole record alive (with change
// tracking, the URL sums make it several times the gzip size), and start
// on an aligned address, which makes serving it several times faster
// (BENCHMARKS.md, "Shared store").
func decodeRecord(k docKey, b []byte) (*entry, []keyClock, error) {
	d, err := record.Decode(b)
	if err != nil {
		return nil, nil, err
	}
	e := fromRecordFile(d.Main)
	if d.Table != nil {
		// Checked against the copy's own bytes and hash; one that does not
		// match is dropped, and the copy served without it (a rebuild then
		// reads the page whole). Its segments are decompressed before any is
		// reused (build.go, storedTable).
		if tab, err := segment.ParseTable(d.Table, e.gz, e.hash); err == nil {
			e.segs, e.segsStored = tab, true
		}
	}
	clocks := []keyClock{{k, fromRecordClock(d.Main.Clock)}}
	e.gen, e.era = d.Gen, d.Era
	e.info.Number, e.info.LastMod, e.info.Version = d.Info.Number, d.Info.LastMod, d.Info.Version
	if len(d.Sums) > 0 {
		e.sums = make([]urlSum, len(d.Sums))
		for i, s := range d.Sums {
			e.sums[i] = urlSum{loc: s.Loc, entry: s.Entry}
		}
	}
	if len(d.Pages) > 0 {
		e.pages = make([][]PageInfo, len(d.Pages))
		for i, ps := range d.Pages {
			e.pages[i] = make([]PageInfo, len(ps))
			for j, p := range ps {
				e.pages[i][j] = PageInfo{Number: p.Number, LastMod: p.LastMod, Version: p.Version}
				clocks = append(clocks, keyClock{pageKey(i, p.Number), fromRecordClock(p.Clock)})
			}
		}
	}
	if len(d.More) > 0 {
		e.more = make([]*entry, len(d.More))
		for i, f := range d.More {
			e.more[i] = fromRecordFile(f)
			clocks = append(clocks, keyClock{indexFileKey(i + 2), fromRecordClock(f.Clock)})
		}
	}
	return e, clocks, nil
}

// fromRecordFile makes the entry of a file (its ETags and lengths derive
// from its hash, level and bytes, as a build makes them).
func fromRecordFile(f record.File) *entry {
	e := newEntry(bytes.Clone(f.Gz), f.Hash, f.Level, f.LastMod, f.Built)
	e.unclocked = f.LastMod.IsZero() // a stored copy is never one built alone (fleet.go)
	return e
}
