package audit

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// Limits of Options.LeaveOut: the URLs left out at most, those of one file
// requested again at each audit of it, and how long a URL stays out
// before it is requested again. The hold keeps a page that flips between
// noindex and not from having its file rebuilt at every audit: each flip
// back waits for a build the audit did not ask for.
const (
	leftOutMax     = 10_000
	leftOutRecheck = 20
	leftOutHold    = time.Minute
)

// leftOut is the set of URLs the self-audit leaves out of the sitemap
// files (Options.LeaveOut): those it found noindex or canonicalised to
// another URL. A build asks it about every URL it writes (Auditor.Omits),
// so its reads take no lock, from a copy the worker
// publishes after each audit that changed it.
//
// What leaving out does to a file follows the root package's content clock:
// the file is rebuilt (invalidate), its bytes change, so it gets a new
// ETag and a later Last-Modified, the index lists its new lastmod, and a
// client holding the old bytes gets them again, never a 304.
type leftOut[K comparable] struct {
	invalidate func(K)             // rebuilds a file
	writtenLoc func([]byte) []byte // the location of a <url> element as written (Options.WrittenLoc)
	log        *slog.Logger

	mu    sync.Mutex
	m     map[string]leftURL[K] // by the location as written (XML-escaped)
	per   map[K]int             // how many of m each file was found in
	full  bool                  // leftOutMax was reached (logged once)
	dirty bool                  // m changed since it was last published

	view atomic.Pointer[map[string]struct{}] // m's locations, copied on each change, for builds
}

// leftURL[K] is a URL left out: the file it was found in, why, and when.
type leftURL[K comparable] struct {
	file K
	why  pagecheck.Finding
	at   time.Time
}

func newLeftOut[K comparable](invalidate func(K), writtenLoc func([]byte) []byte, log *slog.Logger) *leftOut[K] {
	return &leftOut[K]{invalidate: invalidate, writtenLoc: writtenLoc, log: log, m: make(map[string]leftURL[K]), per: make(map[K]int)}
}

// omits tells whether the <url> element elem, as the encoder wrote it,
// is of a URL left out (Auditor.Omits). It is safe for concurrent use,
// allocates nothing, and costs a pointer load while none is.
func (l *leftOut[K]) omits(elem []byte) bool {
	m := l.view.Load()
	if m == nil || len(*m) == 0 {
		return false
	}
	_, ok := (*m)[string(l.writtenLoc(elem))]
	return ok
}

// has tells whether the URL at loc, as written (XML-escaped), is left out.
func (l *leftOut[K]) has(loc []byte) bool {
	return l.omits(append(append([]byte("<url><loc>"), loc...), "</loc>"...))
}

// leaves tells whether findings are a reason to leave a URL out: noindex,
// or a canonical link to another URL.
func leaves(found []pagecheck.Finding) (pagecheck.Finding, bool) {
	for _, f := range found {
		if f.Kind == pagecheck.Noindex || f.Kind == pagecheck.Canonical {
			return f, true
		}
	}
	return pagecheck.Finding{}, false
}

// add leaves out the URL raw (as written) of file k if found says to; it
// reports whether it was not left out already. Past leftOutMax URLs none
// is added, which is logged once.
func (l *leftOut[K]) add(raw string, k K, found []pagecheck.Finding, now time.Time) bool {
	why, ok := leaves(found)
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.m[raw]; ok {
		return false
	}
	if len(l.m) >= leftOutMax {
		if !l.full {
			l.full = true
			l.log.Warn("sitemap: audit leaves out no more URLs: it leaves out the most it may", "max", leftOutMax)
		}
		return false
	}
	l.m[raw] = leftURL[K]{file: k, why: why, at: now}
	l.per[k]++
	l.dirty = true
	return true
}

// keep tells whether the URL raw, requested again, is still to be left
// out by what was found; if not, it is let back in.
func (l *leftOut[K]) keep(raw string, found []pagecheck.Finding) bool {
	why, ok := leaves(found)
	l.mu.Lock()
	defer l.mu.Unlock()
	u, in := l.m[raw]
	switch {
	case !in:
		return false
	case ok:
		u.why = why
		l.m[raw] = u
		return true
	}
	delete(l.m, raw)
	if l.per[u.file]--; l.per[u.file] == 0 {
		delete(l.per, u.file)
	}
	l.full = false
	l.dirty = true
	return false
}

// of returns the URLs (as written) left out of file k for leftOutHold or
// longer at now, at most leftOutRecheck of them.
func (l *leftOut[K]) of(k K, now time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for raw, u := range l.m {
		if u.file == k && now.Sub(u.at) >= leftOutHold {
			if out = append(out, raw); len(out) == leftOutRecheck {
				break
			}
		}
	}
	return out
}

// count returns how many URLs are left out, and how many of file k.
func (l *leftOut[K]) count(k K) (all, file int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m), l.per[k]
}

// publish makes the builds see m as it is now, if it changed: the worker
// calls it once an audit, before it has the file rebuilt, so that a copy
// of m is made once a file, not once a URL.
func (l *leftOut[K]) publish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.dirty {
		return
	}
	l.dirty = false
	v := make(map[string]struct{}, len(l.m))
	for raw := range l.m {
		v[raw] = struct{}{}
	}
	l.view.Store(&v)
}
