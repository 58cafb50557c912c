// Package clockfile keeps content clocks in a file, given plain keys and
// clocks (internal/record's), so that a restart without a Store keeps
// every file's Last-Modified: the clocks the last process gave, and the
// hash of the bytes each went with.
//
// The file is a log: a header with the time the file was made (the
// floor: no clock given before it is known), then one record per clock
// given, appended, and written to disk (fsync) before the bytes that
// carry the clock are served, so that no clock a client saw is missing
// after a crash. A torn last record is dropped. When the log has grown to
// several times its live records, it is rewritten with only those,
// atomically.
package clockfile

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
	"github.com/freshmap/sitemap/internal/record"
)

// Key names the file a clock is of: its kind, its section's name (empty
// for a kind that has none) and its page number.
type Key struct {
	Kind byte
	Name string
	Page int64
}

// File is an open clock file. A nil *File writes nothing.
type File struct {
	path  string
	floor time.Time
	log   *slog.Logger

	mu      sync.Mutex
	f       *os.File
	pending []byte         // records put since the last sync
	live    map[Key][]byte // the last record of each file, for a rewrite
	size    int64          // the file's length
	failed  bool           // a write failed (logged once): nothing more is written
}

// magic starts a clock file; its last byte is the format version.
const magic = "SMJ\x01"

// Open opens or makes the clock file at path, at now, and returns it
// with the clocks it holds: the latest of each key known accepts (the
// others are dropped from the file).
func Open(path string, now time.Time, known func(Key) bool, log *slog.Logger) (*File, map[Key]record.Clock, error) {
	c := &File{path: path, log: log, live: make(map[Key][]byte)}
	loaded := make(map[Key]record.Clock)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.floor = now.UTC().Truncate(time.Second).Add(2 * time.Second) // the root's floorAfter(now)
		if err := c.rewrite(); err != nil {
			return nil, nil, err
		}
		return c, loaded, nil
	case err != nil:
		return nil, nil, fmt.Errorf("reading the clock file: %w", err)
	}
	d, err := c.header(b)
	if err != nil {
		return nil, nil, fmt.Errorf("the clock file %s: %w", path, err)
	}
	for len(d) > 0 {
		n, w := binary.Uvarint(d)
		if w <= 0 || n > uint64(len(d)-w) {
			break // a torn last record
		}
		rec := d[w : w+int(n)]
		if k, x, ok := decode(rec); ok && known(k) {
			if y, seen := loaded[k]; !seen || !x.At.Before(y.At) {
				loaded[k], c.live[k] = x, rec
			}
		}
		d = d[w+int(n):]
	}
	if err := c.rewrite(); err != nil { // drops a torn tail and old records
		return nil, nil, err
	}
	return c, loaded, nil
}

// Floor returns the time the file was made: no clock before it is known.
func (c *File) Floor() time.Time { return c.floor }

// header checks the header of b, sets the floor, and returns the records.
func (c *File) header(b []byte) ([]byte, error) {
	if len(b) < len(magic)+8+8 || string(b[:len(magic)]) != magic {
		return nil, errors.New("not a clock file")
	}
	h := b[:len(magic)+8]
	if xxhash.Sum64(h) != binary.LittleEndian.Uint64(b[len(h):]) {
		return nil, errors.New("its header is damaged")
	}
	c.floor = time.Unix(int64(binary.LittleEndian.Uint64(h[len(magic):])), 0).UTC()
	return b[len(h)+8:], nil
}

// encode returns the record of k's clock x: the key's kind, name and
// page, then the clock as a Store holds it.
func encode(k Key, x record.Clock) []byte {
	b := record.AppendString([]byte{k.Kind}, k.Name)
	b = binary.AppendVarint(b, k.Page)
	return append(b, record.EncodeClock(x)...)
}

// decode reads a record encode wrote; ok is false for one that does not
// decode.
func decode(rec []byte) (k Key, x record.Clock, ok bool) {
	if len(rec) == 0 {
		return k, x, false
	}
	d := record.NewDecoder(rec[1:])
	k = Key{Kind: rec[0], Name: d.String(), Page: d.Varint()}
	if d.Err() != nil {
		return k, x, false
	}
	x, err := record.DecodeClock(d.Rest())
	return k, x, err == nil
}

// Put appends the clock x of k, to be written at the next Sync.
func (c *File) Put(k Key, x record.Clock) {
	if c == nil {
		return
	}
	rec := encode(k, x)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live[k] = rec
	c.pending = binary.AppendUvarint(c.pending, uint64(len(rec)))
	c.pending = append(c.pending, rec...)
}

// Sync writes the records put so far, and waits for the disk; the log is
// rewritten when it has grown to four times its live records. A failure
// is logged once, and nothing more is written.
func (c *File) Sync() {
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

func (c *File) liveSize() int64 {
	var n int64
	for _, rec := range c.live {
		n += int64(len(rec)) + 2
	}
	return n
}

// rewrite writes the header and the live records to a new file, and puts
// it in the place of the old one.
func (c *File) rewrite() error {
	b := binary.LittleEndian.AppendUint64([]byte(magic), uint64(c.floor.Unix()))
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

// Close writes what is pending and closes the file.
func (c *File) Close() {
	if c == nil {
		return
	}
	c.Sync()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
		c.failed = true
	}
}
