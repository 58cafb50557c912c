// Package audit is a sitemap server's self-audit: after a file is built,
// a sample of its URLs is requested in process, through the application
// (an http.Handler), and each answer is checked as a search engine would
// (package pagecheck): status 200, no redirect, no noindex, a canonical
// link naming the listed URL, allowed by the site's robots.txt, and a
// lastmod that agrees with the page's dates. It can leave out of later
// builds the URLs found noindex or canonicalised elsewhere. It is given
// plain data: the files by a key of the caller's (K), their names and
// built bytes, the base URL, a clock, a logger, and the readers of the
// files' bytes (Options.Heads, Parse, WrittenLoc: Heads and ParseHead,
// heads.go, read what internal/xmlenc writes).
package audit

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// Options configures an Auditor of files keyed by K. Zero fields take
// the defaults the root package documents (Config.Audit).
type Options[K comparable] struct {
	PerMinute     int           // URLs requested a minute at most; zero means 60
	Share         float64       // the share of a file's URLs sampled; zero means 0.01
	Timeout       time.Duration // one request's bound; zero means 10 seconds
	LastmodBehind time.Duration // zero means 1 hour; negative turns the check off
	LastmodAhead  time.Duration // zero means 1 hour; negative turns the check off
	LeaveOut      bool          // leave out the URLs found noindex or canonicalised elsewhere

	Base      string // the site's base URL: only its scheme and host are requested, and its /robots.txt read
	Header    string // the header set to "1" on every request of the audit
	UserAgent string // the User-Agent of its requests

	Logger *slog.Logger // nil means none
	Now    func() time.Time
	// Invalidate has a file rebuilt whose URLs were left out or let back
	// in (LeaveOut).
	Invalidate func(K)
	// Heads returns the start of every <url> element of a built file, as
	// Parse reads it; Parse reads one, and one made of a location alone
	// ("<url><loc>" + raw + "</loc>"); WrittenLoc returns the location of
	// a <url> element as written (XML-escaped).
	Heads      func(gz []byte) ([]string, error)
	Parse      func(head string) URL
	WrittenLoc func(elem []byte) []byte
}

// URL is one URL of a built file, as the audit reads it back.
type URL struct {
	Raw     string         // the location as written: XML-escaped
	Loc     string         // the location
	Lastmod pagecheck.Span // its lastmod; zero if none
}

// Report is what the audit found since New (Auditor.Report).
type Report struct {
	Checked      int64            // URLs requested and checked
	Skipped      int64            // sampled URLs not requested: over PerMinute, or not on the site's host
	FilesSkipped int64            // built files not audited: the queue was full, or no application is attached
	Findings     map[string]int64 // findings by kind (pagecheck.Kinds, each present)
	LeftOut      int64            // URLs left out of the files now (LeaveOut)
	Files        []File           // the last audit of each file (at most 1,024, the latest), by file name
}

// File is the last audit of one file.
type File struct {
	File     string         // its name
	At       time.Time      // when it was audited
	Checked  int            // its URLs requested
	Findings map[string]int // findings by kind
	Examples []Finding      // the first findings, at most 5
	LeftOut  int            // its URLs left out after this audit (LeaveOut)
}

// Finding is one thing wrong with a listed URL.
type Finding struct {
	Kind   string // a pagecheck kind
	Loc    string // the URL as listed
	Detail string // what was seen
}

// Limits of the audit: the files waiting to be audited, the files whose
// last audit is kept, the examples kept of each, and how long the rules of
// robots.txt are reused.
const (
	auditQueue    = 8
	auditFiles    = 1024
	auditExamples = 5
	auditRobots   = time.Minute
)

// Auditor runs the self-audit: one goroutine takes the built files from a
// short queue and requests their sampled URLs one at a time. It owns the
// rate budget, the robots.txt rules, the findings and the URLs left out.
type Auditor[K comparable] struct {
	o         Options[K]
	site      string // the scheme and host of Base: "https://example.com"
	log       *slog.Logger
	now       func() time.Time
	perMinute int
	share     float64
	timeout   time.Duration
	tol       pagecheck.Tolerances
	app       atomic.Pointer[http.Handler] // what the audit requests (Attach)
	jobs      chan job[K]
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	handlers  sync.WaitGroup // the application's handlers serving audit requests
	running   atomic.Int64   // how many: get's own, and those left running past their deadline
	left      *leftOut[K]    // the URLs left out (LeaveOut); nil when off

	// Read by the worker alone.
	window  time.Time // the start of the budget's minute
	spent   int       // URLs requested in it
	rules   *pagecheck.Rules
	rulesAt time.Time

	checked, skipped, filesSkipped atomic.Int64
	findings, behind, ahead        atomic.Int64
	mu                             sync.Mutex
	kinds                          map[string]int64
	files                          map[string]*File
}

type job[K comparable] struct {
	key  K
	name string
	gz   []byte // the file as built; never changed
}

// New starts an audit as o says; its goroutine runs until Close. An
// unparsable Base is an error.
func New[K comparable](o Options[K]) (*Auditor[K], error) {
	base, err := url.Parse(o.Base)
	if err != nil {
		return nil, err
	}
	a := &Auditor[K]{o: o, site: base.Scheme + "://" + base.Host, log: o.Logger,
		now: o.Now, perMinute: cmp.Or(o.PerMinute, 60), share: cmp.Or(o.Share, 0.01),
		timeout: cmp.Or(o.Timeout, 10*time.Second), jobs: make(chan job[K], auditQueue), done: make(chan struct{}),
		tol:   pagecheck.Tolerances{Behind: cmp.Or(o.LastmodBehind, time.Hour), Ahead: cmp.Or(o.LastmodAhead, time.Hour)},
		kinds: make(map[string]int64), files: make(map[string]*File)}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	if o.LeaveOut {
		a.left = newLeftOut(o.Invalidate, o.WrittenLoc, a.log)
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	go a.run()
	return a, nil
}

// Attach makes h, the middleware around the application, what the audit
// requests; the last call wins.
func (a *Auditor[K]) Attach(h http.Handler) { a.app.Store(&h) }

// Enqueue hands the built file k, named name, to the worker; it never
// blocks: a file that does not fit the queue is not audited.
func (a *Auditor[K]) Enqueue(k K, name string, gz []byte) {
	if a.app.Load() == nil {
		a.filesSkipped.Add(1)
		return
	}
	select {
	case a.jobs <- job[K]{k, name, gz}:
	default:
		a.filesSkipped.Add(1)
	}
}

// Stop cancels the audit: the request under way ends at once (get), and
// none starts. Close calls it first, so that the audit's requests end
// while the builds do.
func (a *Auditor[K]) Stop() { a.cancel() }

// Close stops the audit and waits, until deadline at the latest, for the
// worker and for the application's handlers still serving its requests;
// a handler that ignores its context and its failing writes is then left
// to end on its own, which is logged.
func (a *Auditor[K]) Close(deadline time.Time) {
	a.cancel()
	idle := make(chan struct{})
	go func() { <-a.done; a.handlers.Wait(); close(idle) }() // ends when the last handler does
	wait := time.Until(deadline)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
		a.log.Warn("sitemap: Close gave up waiting for the audit's request; the application ignores its context",
			"handlers", a.running.Load(), "waited", max(wait, 0))
	}
}

func (a *Auditor[K]) run() {
	defer close(a.done)
	for {
		select {
		case <-a.ctx.Done():
			return
		case j := <-a.jobs:
			a.audit(j)
		}
	}
}

// audit checks a sample of the URLs of one built file, and the URLs left
// out of it, and records and logs what it found.
func (a *Auditor[K]) audit(j job[K]) {
	app := *a.app.Load()
	heads, err := a.o.Heads(j.gz)
	if err != nil { // cannot happen: we compressed it
		a.log.Error("sitemap: audit: a built file does not decompress", "file", j.name, "err", err)
		return
	}
	sample := pagecheck.Sample(heads, max(1, int(math.Ceil(a.share*float64(len(heads))))))
	res := &File{File: j.name, At: a.now(), Findings: make(map[string]int)}
	changed := false // a URL of the file was left out or let back in
	for i, head := range sample {
		if a.ctx.Err() != nil {
			return
		}
		u := a.o.Parse(head)
		if !a.onSite(u.Loc) {
			a.skipped.Add(1)
			continue
		}
		if !a.take() {
			a.skipped.Add(int64(len(sample) - i))
			break
		}
		res.Checked++
		found := a.check(app, u)
		for _, f := range found {
			res.Findings[f.Kind]++
			if len(res.Examples) < auditExamples {
				res.Examples = append(res.Examples, Finding{Kind: f.Kind, Loc: u.Loc, Detail: f.Detail})
			}
		}
		if a.left != nil && a.left.add(u.Raw, j.key, found, res.At) {
			changed = true
		}
	}
	if a.left != nil {
		changed = a.recheck(app, j.key, j.name) || changed
	}
	if a.ctx.Err() != nil {
		return
	}
	if changed {
		a.left.publish()
		a.left.invalidate(j.key)
	}
	if res.Checked == 0 {
		return
	}
	if a.left != nil {
		_, res.LeftOut = a.left.count(j.key)
	}
	a.logFile(res)
	a.record(res) // last: a reader that sees the file's audit sees its log line
}

// recheck requests again the URLs left out of file k (named name) a minute ago or
// more, within the budget, and lets back in those that are fine now; it
// reports whether one was.
func (a *Auditor[K]) recheck(app http.Handler, k K, name string) bool {
	back := false
	for _, raw := range a.left.of(k, a.now()) {
		if a.ctx.Err() != nil || !a.take() {
			break
		}
		u := a.o.Parse("<url><loc>" + raw + "</loc>")
		if a.left.keep(raw, a.check(app, u)) {
			continue
		}
		back = true
		a.log.Info("sitemap: audit lets a URL back in: it is neither noindex nor canonicalised elsewhere now",
			"file", name, "loc", u.Loc)
	}
	return back
}

// take spends one URL of the minute's budget, if any is left, and if
// fewer than Stuck of the application's handlers are left running.
func (a *Auditor[K]) take() bool {
	if a.running.Load() >= Stuck {
		return false
	}
	now := a.now()
	if now.Before(a.window) || now.Sub(a.window) >= time.Minute {
		a.window, a.spent = now, 0
	}
	if a.spent >= a.perMinute {
		return false
	}
	a.spent++
	return true
}

// onSite tells whether loc has the scheme and host of the base URL: no
// other URL is requested.
func (a *Auditor[K]) onSite(loc string) bool {
	rest, ok := strings.CutPrefix(loc, a.site)
	return ok && (rest == "" || rest[0] == '/' || rest[0] == '?')
}

// check requests u through app and returns what is wrong with it: the
// checks of pagecheck.Check, then, for a 200, the lastmod's drift.
func (a *Auditor[K]) check(app http.Handler, u URL) []pagecheck.Finding {
	pu, err := url.Parse(u.Loc)
	if err != nil { // cannot happen: the encoder wrote it
		return []pagecheck.Finding{{Kind: pagecheck.Error, Detail: err.Error()}}
	}
	var out []pagecheck.Finding
	if ok, by := a.robotsRules(app).Allowed(pu.RequestURI()); !ok {
		out = append(out, pagecheck.Finding{Kind: pagecheck.Robots, Detail: by})
	}
	rec, err := a.get(app, pu)
	a.checked.Add(1)
	if err != nil {
		return append(out, pagecheck.Finding{Kind: pagecheck.Error, Detail: err.Error()})
	}
	out = append(out, pagecheck.Check(u.Loc, rec.status, rec.sent, rec.body)...)
	if rec.status == http.StatusOK {
		out = append(out, pagecheck.Drift(u.Lastmod, pagecheck.ReadDates(rec.sent, rec.body), a.tol)...)
	}
	return out
}

// robotsRules returns Googlebot's rules in the robots.txt that app (the
// middleware) serves, read again after a minute. A robots.txt that does not
// answer 200 allows everything.
func (a *Auditor[K]) robotsRules(app http.Handler) *pagecheck.Rules {
	if now := a.now(); a.rules == nil || now.Before(a.rulesAt) || now.Sub(a.rulesAt) >= auditRobots {
		u, _ := url.Parse(a.o.Base)
		u.Path, u.RawPath = "/robots.txt", ""
		a.rules, a.rulesAt = &pagecheck.Rules{}, now
		if rec, err := a.get(app, u); err == nil && rec.status == http.StatusOK {
			a.rules = pagecheck.ParseRobots(rec.body, "googlebot")
		}
	}
	return a.rules
}

// record keeps res as its file's last audit, and adds it to the totals.
func (a *Auditor[K]) record(res *File) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range res.Findings {
		a.kinds[k] += int64(n)
		a.findings.Add(int64(n))
	}
	a.behind.Add(int64(res.Findings[pagecheck.LastmodBehind]))
	a.ahead.Add(int64(res.Findings[pagecheck.LastmodAhead]))
	if _, ok := a.files[res.File]; !ok && len(a.files) >= auditFiles {
		var oldest *File
		for _, f := range a.files {
			if oldest == nil || f.At.Before(oldest.At) {
				oldest = f
			}
		}
		delete(a.files, oldest.File)
	}
	a.files[res.File] = res
}

// logFile writes the one line of a file's audit: a warning with the first
// findings, or a debug line when there are none.
func (a *Auditor[K]) logFile(res *File) {
	if len(res.Examples) == 0 {
		a.log.Debug("sitemap: audit found nothing wrong", "file", res.File, "checked", res.Checked)
		return
	}
	kinds := make([]string, 0, len(res.Findings))
	for k, n := range res.Findings {
		kinds = append(kinds, k+"="+strconv.Itoa(n))
	}
	slices.Sort(kinds)
	ex := make([]string, len(res.Examples))
	for i, f := range res.Examples {
		ex[i] = f.Kind + " " + f.Loc + " (" + f.Detail + ")"
	}
	a.log.Warn("sitemap: audit found problems", "file", res.File, "checked", res.Checked,
		"findings", strings.Join(kinds, " "), "examples", ex)
}

// Report returns what the audit found since New.
func (a *Auditor[K]) Report() Report {
	r := Report{Checked: a.checked.Load(), Skipped: a.skipped.Load(), FilesSkipped: a.filesSkipped.Load(),
		Findings: make(map[string]int64)}
	for _, k := range pagecheck.Kinds {
		r.Findings[k] = 0
	}
	r.LeftOut = int64(a.LeftOut())
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range a.kinds {
		r.Findings[k] = n
	}
	for _, f := range a.files {
		r.Files = append(r.Files, f.clone())
	}
	slices.SortFunc(r.Files, func(x, y File) int { return strings.Compare(x.File, y.File) })
	return r
}

// FileAudit returns the last audit of the file name, for a view of that
// one file, without copying the others; false when it has none, or for
// a nil Auditor.
func (a *Auditor[K]) FileAudit(name string) (File, bool) {
	if a == nil {
		return File{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.files[name]; f != nil {
		return f.clone(), true
	}
	return File{}, false
}

// clone is a copy of f that shares nothing with it.
func (f *File) clone() File {
	c := *f
	c.Findings = maps.Clone(f.Findings)
	c.Examples = slices.Clone(f.Examples)
	return c
}

// Counts are the audit's running totals (Stats).
type Counts struct {
	Checked, Skipped, Findings int64 // URLs checked and skipped, and findings of every kind
	Behind, Ahead              int64 // the findings lastmod_behind and lastmod_ahead
	LeftOut                    int64 // URLs left out now (LeaveOut)
}

// Counts returns the audit's running totals; it takes no lock but
// LeaveOut's.
func (a *Auditor[K]) Counts() Counts {
	return Counts{Checked: a.checked.Load(), Skipped: a.skipped.Load(), Findings: a.findings.Load(),
		Behind: a.behind.Load(), Ahead: a.ahead.Load(), LeftOut: int64(a.LeftOut())}
}

// LeftOut returns how many URLs are left out now; 0 without LeaveOut.
func (a *Auditor[K]) LeftOut() int {
	if a.left == nil {
		return 0
	}
	a.left.mu.Lock()
	defer a.left.mu.Unlock()
	return len(a.left.m)
}

// LeavesOut reports whether the audit leaves URLs out (LeaveOut): then a
// build asks Omits about each URL it writes.
func (a *Auditor[K]) LeavesOut() bool { return a.left != nil }

// Omits tells whether the <url> element elem, as the encoder wrote it,
// is of a URL left out. It is safe for concurrent use, allocates
// nothing, and costs a pointer load while none is; false without
// LeaveOut.
func (a *Auditor[K]) Omits(elem []byte) bool { return a.left != nil && a.left.omits(elem) }

// Running returns how many of the application's handlers serve audit
// requests now: the one under way, and those left running past their
// deadline (at most Stuck).
func (a *Auditor[K]) Running() int64 { return a.running.Load() }
