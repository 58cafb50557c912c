package sitemap

import (
	"log/slog"
	"time"

	"github.com/freshmap/sitemap/internal/clockfile"
)

// clockFile is the clock file (Config.ClockFile): the content clocks
// kept on disk by internal/clockfile, so that a restart without a Store
// keeps every file's Last-Modified. It names a file by its kind, its
// section's name (so that sections added or moved keep their clocks) and
// its page, and drops the clocks of sections this Sitemap does not have.
type clockFile struct {
	file     *clockfile.File
	floor    time.Time
	sections []*section
	loaded   map[docKey]fileClock
}

// openClockFile opens or makes the clock file at path, at now.
func openClockFile(path string, sections []*section, now time.Time, log *slog.Logger) (*clockFile, error) {
	c := &clockFile{sections: sections}
	f, loaded, err := clockfile.Open(path, now, func(k clockfile.Key) bool { _, ok := c.docKey(k); return ok }, log)
	if err != nil {
		return nil, err
	}
	c.file, c.floor, c.loaded = f, f.Floor(), make(map[docKey]fileClock, len(loaded))
	for k, x := range loaded {
		dk, _ := c.docKey(k)
		c.loaded[dk] = fromRecordClock(x)
	}
	return c, nil
}

// docKey returns the file k names; ok is false for one of a section this
// Sitemap does not have, or of a kind it does not know.
func (c *clockFile) docKey(k clockfile.Key) (dk docKey, ok bool) {
	dk.kind, dk.page, dk.sec = keyKind(k.Kind), k.Page, -1
	if dk.kind > docFeed {
		return dk, false
	}
	if dk.kind == docIndex {
		dk.sec = 0
	}
	for i, sec := range c.sections {
		if dk.kind != docIndex && sec.name == k.Name {
			dk.sec = i
		}
	}
	return dk, dk.sec >= 0
}

// load returns the clocks the file holds, by file.
func (c *clockFile) load() map[docKey]fileClock {
	m := c.loaded
	c.loaded = nil
	return m
}

// put appends the clock x of k, to be written at the next sync.
func (c *clockFile) put(k docKey, x fileClock) {
	if c == nil {
		return
	}
	name := ""
	if k.kind != docIndex {
		name = c.sections[k.sec].name
	}
	c.file.Put(clockfile.Key{Kind: byte(k.kind), Name: name, Page: k.page}, toRecordClock(x))
}

// sync writes the clocks put so far, and waits for the disk.
func (c *clockFile) sync() {
	if c != nil {
		c.file.Sync()
	}
}

// close writes what is pending and closes the file.
func (c *clockFile) close() {
	if c != nil {
		c.file.Close()
	}
}
