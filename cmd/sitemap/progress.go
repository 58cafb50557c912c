package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// progress tells how far the check is: on a terminal one line, rewritten
// as each file is done; otherwise a plain line per file.
type progress struct {
	w      io.Writer
	tty    bool
	counts func() (files, urls int) // so far
	verb   string                   // "checked" or "crawled"

	mu      sync.Mutex
	pending int
}

func newProgress(w io.Writer, counts func() (files, urls int)) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progress{w: w, tty: tty, counts: counts, verb: "checked"}
}

// queued counts one more file to fetch.
func (p *progress) queued() {
	p.mu.Lock()
	p.pending++
	p.mu.Unlock()
}

// done reports a file checked (or given up on).
func (p *progress) done(name string) {
	name = clean(name)
	files, urls := p.counts()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending--
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%d files, %d URLs %s, %d to go: %s", files, urls, p.verb, p.pending, name)
	} else {
		fmt.Fprintf(p.w, "%s %s (%d files, %d URLs so far)\n", p.verb, name, files, urls)
	}
}

// end clears the terminal's progress line.
func (p *progress) end() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
