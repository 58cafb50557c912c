package sitemap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// clockFile keeps the content clocks in a file (Config.ClockFile), so
// that a restart without a Store keeps every file's Last-Modified: the
// clocks the last process gave, and the hash of the bytes each went with.
//
// It is a log: a header with the time the file was made (the floor: no
// clock given before it is known), then one record per clock given,
// appended, and written to disk (fsync) before the bytes that carry the
// clock are served, so that no clock a client saw is missing after a
// crash. A torn last record is dropped. When the log has grown to several
// times its live records, it is rewritten with only those, atomically.
type clockFile struct {
	path     string
	floor    time.Time
	sections []*section
	log      *slog.Logger

	mu      sync.Mutex
	f       *os.File
	pending []byte            // records put since the last sync
	live    map[docKey][]byte // the last record of each file, for a rewrite
	size    int64             // the file's length
	failed  bool              // a write failed (logged once): nothing more is written
	loaded  map[docKey]fileClock
}

// clockFileMagic starts a clock file; its last byte is the format version.
const clockFileMagic = "SMJ\x01"

// openClockFile opens or makes the clock file at path, at now.
func openClockFile(path string, sections []*section, now time.Time, log *slog.Logger) (*clockFile, error) {
	c := &clockFile{path: path, sections: sections, log: log, live: make(map[docKey][]byte), loaded: make(map[docKey]fileClock)}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.floor = now.UTC().Truncate(time.Second).Add(2 * time.Second) // floorAfter(now)
		if err := c.rewrite(); err != nil {
			return nil, err
		}
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("reading the clock file: %w", err)
	}
	d, err := c.header(b)
	if err != nil {
		return nil, fmt.Errorf("the clock file %s: %w", path, err)
	}
	for len(d) > 0 {
		n, w := binary.Uvarint(d)
		if w <= 0 || n > uint64(len(d)-w) {
			break // a torn last record
		}
		rec := d[w : w+int(n)]
		if k, x, ok := c.decode(rec); ok {
			if y, seen := c.loaded[k]; !seen || !x.at.Before(y.at) {
				c.loaded[k], c.live[k] = x, rec
			}
		}
		d = d[w+int(n):]
	}
	if err := c.rewrite(); err != nil { // drops a torn tail and old records
		return nil, err
	}
	return c, nil
}

// header checks the header of b, sets the floor, and returns the records.
func (c *clockFile) header(b []byte) ([]byte, error) {
	if len(b) < len(clockFileMagic)+8+8 || string(b[:len(clockFileMagic)]) != clockFileMagic {
		return nil, errors.New("not a clock file")
	}
	h := b[:len(clockFileMagic)+8]
	if xxhash.Sum64(h) != binary.LittleEndian.Uint64(b[len(h):]) {
		return nil, errors.New("its header is damaged")
	}
	c.floor = time.Unix(int64(binary.LittleEndian.Uint64(h[len(clockFileMagic):])), 0).UTC()
	return b[len(h)+8:], nil
}

// load returns the clocks the file holds, by file.
func (c *clockFile) load() map[docKey]fileClock {
	m := c.loaded
	c.loaded = nil
	return m
}

// encode returns the record of k's clock x: the file's kind, section and
// number, then the clock as a Store holds it.
func (c *clockFile) encode(k docKey, x fileClock) []byte {
	b := []byte{byte(k.kind)}
	name := ""
	if k.kind != docIndex {
		name = c.sections[k.sec].name
	}
	b = appendString(b, name)
	b = binary.AppendVarint(b, k.page)
	return append(b, encodeClock(x)...)
}

// decode reads a record encode wrote; ok is false for one of a section
// this Sitemap does not have, or that does not decode.
func (c *clockFile) decode(rec []byte) (k docKey, x fileClock, ok bool) {
	if len(rec) == 0 {
		return k, x, false
	}
	d := &decoder{b: rec[1:]}
	k.kind = keyKind(rec[0])
	name, page := d.string(), d.varint()
	if d.err != nil || k.kind > docFeed {
		return k, x, false
	}
	k.page, k.sec = page, -1
	if k.kind == docIndex {
		k.sec = 0
	}
	for i, sec := range c.sections {
		if k.kind != docIndex && sec.name == name {
			k.sec = i
		}
	}
	x, err := decodeClock(d.b)
	return k, x, err == nil && k.sec >= 0
}

// put appends the clock x of k, to be written at the next sync.
func (c *clockFile) put(k docKey, x fileClock) {
	if c == nil {
		return
	}
	rec := c.encode(k, x)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live[k] = rec
	c.pending = binary.AppendUvarint(c.pending, uint64(len(rec)))
	c.pending = append(c.pending, rec...)
}

// sync writes the records put so far, and waits for the disk; the log is
// rewritten when it has grown to four times its live records.
func (c *clockFile) sync() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 || c.failed {
		return
	}
	_, err := c.f.Write(c.pending)
	if err == nil {
		err = c.f.Sync()
	}
	c.size += int64(len(c.pending))
	c.pending = c.pending[:0]
	if err == nil && c.size > 1<<16 && c.size > 4*c.liveSize() {
		err = c.rewrite()
	}
	if err != nil {
		c.failed = true
		c.log.Error("sitemap: the clock file cannot be written; clocks are kept in memory only from now on, and the next start should remove the file", "path", c.path, "err", err)
	}
}

func (c *clockFile) liveSize() int64 {
	var n int64
	for _, rec := range c.live {
		n += int64(len(rec)) + 2
	}
	return n
}

// rewrite writes the header and the live records to a new file, and puts
// it in the place of the old one.
func (c *clockFile) rewrite() error {
	b := binary.LittleEndian.AppendUint64([]byte(clockFileMagic), uint64(c.floor.Unix()))
	b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
	for _, rec := range c.live {
		b = binary.AppendUvarint(b, uint64(len(rec)))
		b = append(b, rec...)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), filepath.Base(c.path)+".*")
	if err != nil {
		return fmt.Errorf("writing the clock file: %w", err)
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the clock file: %w", err)
	}
	if dir, err := os.Open(filepath.Dir(c.path)); err == nil {
		dir.Sync()
		dir.Close()
	}
	if c.f != nil {
		c.f.Close()
	}
	c.f, c.size = tmp, int64(len(b))
	return nil
}

// close writes what is pending and closes the file.
func (c *clockFile) close() {
	if c == nil {
		return
	}
	c.sync()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
		c.failed = true
	}
}
