package sitemap

import (
	"cmp"
	"context"
	"fmt"
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

// Audit turns on the self-audit (Config.Audit): after a page is built, a
// sample of its URLs is requested in process, through the application the
// middleware wraps (Sitemap.Handler), and each answer is checked as a
// search engine would: status 200, no redirect, no noindex (X-Robots-Tag
// or <meta name="robots">), a canonical link, if any, naming the listed
// URL, allowed to Googlebot by the robots.txt the middleware serves, and
// a lastmod that agrees with the dates the page gives (its Last-Modified,
// <meta property="article:modified_time"> and JSON-LD dateModified).
// Nothing is requested over the network. Sitemap.Audit reports what was
// found, by kind and file.
type Audit struct {
	// PerMinute bounds the URLs requested a minute, for the whole Sitemap;
	// sampled URLs over it are skipped (AuditReport.Skipped). Zero means 60.
	PerMinute int
	// Share is the share of each built file's URLs sampled, above 0 and at
	// most 1; at least one URL a file is. Zero means 0.01 (1 %).
	Share float64
	// Timeout bounds one request through the application (its context's
	// deadline; the application should heed it). A handler still running
	// then is left to end on its own, every write it makes failing, and at
	// most 4 are left so before the audit pauses. Zero means 10 seconds.
	Timeout time.Duration
	// LastmodBehind is how much later than a URL's lastmod a date of its
	// page may be before the audit reports "lastmod_behind" (the page
	// changed, the sitemap does not say so). A date-only lastmod covers its
	// whole day (UTC), and a page's date with no zone any zone. Zero means
	// 1 hour; negative turns the check off.
	LastmodBehind time.Duration
	// LastmodAhead is how much later than every date of the page a URL's
	// lastmod may be before the audit reports "lastmod_ahead" (the sitemap
	// claims a change the page does not show). Zero means 1 hour; negative
	// turns the check off.
	LastmodAhead time.Duration
	// LeaveOut leaves out of the sitemap files the URLs the audit finds
	// noindex or canonicalised to another URL, instead of only reporting
	// them: the file is rebuilt without them (new bytes, so a new ETag and
	// Last-Modified), and each is requested again whenever its file is
	// audited a minute or more after, and listed again once it is fine. At
	// most 10,000 URLs are left out; see docs/audit.md. Off by default.
	LeaveOut bool
}

// AuditHeader is the header set on every request of the self-audit, with
// the value "1", so that the application can leave it out of its
// analytics: if r.Header.Get(sitemap.AuditHeader) != "" { … }.
const AuditHeader = "Sitemap-Audit"

// auditUserAgent is the User-Agent of the audit's requests.
const auditUserAgent = "Mozilla/5.0 (compatible; freshmap-sitemap-audit/1; +https://github.com/freshmap/sitemap)"

// Limits of the audit: the files waiting to be audited, the files whose
// last audit is kept, the examples kept of each, and how long the rules of
// robots.txt are reused.
const (
	auditQueue    = 8
	auditFiles    = 1024
	auditExamples = 5
	auditRobots   = time.Minute
)

// AuditReport is what the self-audit found since New (Sitemap.Audit).
type AuditReport struct {
	Checked      int64            // URLs requested and checked
	Skipped      int64            // sampled URLs not requested: over PerMinute, or not on the site's host
	FilesSkipped int64            // built files not audited: the queue was full, or no application is wrapped
	Findings     map[string]int64 // findings by kind: status, redirect, noindex, canonical, robots, error, lastmod_behind, lastmod_ahead (each present, zero or not)
	LeftOut      int64            // URLs left out of the files now (Audit.LeaveOut)
	Files        []AuditFile      // the last audit of each file (at most 1,024, the latest), by file name
}

// AuditFile is the last audit of one sitemap file.
type AuditFile struct {
	File     string         // its name: sitemap-products-3.xml.gz
	At       time.Time      // when it was audited
	Checked  int            // its URLs requested
	Findings map[string]int // findings by kind
	Examples []AuditFinding // the first findings, at most 5
	LeftOut  int            // its URLs left out after this audit (Audit.LeaveOut)
}

// AuditFinding is one thing wrong with a listed URL.
type AuditFinding struct {
	Kind   string // status, redirect, noindex, canonical, robots, error, lastmod_behind or lastmod_ahead
	Loc    string // the URL as listed
	Detail string // what was seen: "404", "301 /new", "X-Robots-Tag: noindex", the other canonical, the Disallow rule, the two dates
}

// auditor runs the self-audit: one goroutine takes the built files from a
// short queue and requests their sampled URLs one at a time. It owns the
// rate budget, the robots.txt rules, the findings and the URLs left out.
type auditor struct {
	site      *site
	log       *slog.Logger
	now       func() time.Time
	perMinute int
	share     float64
	timeout   time.Duration
	tol       pagecheck.Tolerances
	app       atomic.Pointer[http.Handler] // what Sitemap.Handler wraps, through the middleware
	jobs      chan auditJob
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	handlers  sync.WaitGroup // the application's handlers serving audit requests
	running   atomic.Int64   // how many: get's own, and those left running past their deadline
	left      *leftOut       // the URLs left out (Audit.LeaveOut); nil when off

	// Read by the worker alone.
	window  time.Time // the start of the budget's minute
	spent   int       // URLs requested in it
	rules   *pagecheck.Rules
	rulesAt time.Time

	checked, skipped, filesSkipped atomic.Int64
	findings, behind, ahead        atomic.Int64
	mu                             sync.Mutex
	kinds                          map[string]int64
	files                          map[string]*AuditFile
}

type auditJob struct {
	key  docKey
	name string
	gz   []byte // the file as built; never changed
}

// newAuditor starts the audit of st's built files; invalidate, when
// LeaveOut is on, is how it has a file rebuilt whose URLs it left out or
// let back in.
func newAuditor(st *site, cfg *Audit, log *slog.Logger, now func() time.Time, invalidate func(docKey)) *auditor {
	a := &auditor{site: st, log: log, now: now, perMinute: cmp.Or(cfg.PerMinute, 60), share: cmp.Or(cfg.Share, 0.01),
		timeout: cmp.Or(cfg.Timeout, 10*time.Second), jobs: make(chan auditJob, auditQueue), done: make(chan struct{}),
		tol:   pagecheck.Tolerances{Behind: cmp.Or(cfg.LastmodBehind, time.Hour), Ahead: cmp.Or(cfg.LastmodAhead, time.Hour)},
		kinds: make(map[string]int64), files: make(map[string]*AuditFile)}
	if cfg.LeaveOut {
		a.left = newLeftOut(invalidate, log)
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	go a.run()
	return a
}

// checkAudit checks Config.Audit.
func checkAudit(cfg *Audit) error {
	switch {
	case cfg.PerMinute < 0:
		return fmt.Errorf("Audit.PerMinute %d is negative", cfg.PerMinute)
	case !(cfg.Share >= 0 && cfg.Share <= 1):
		return fmt.Errorf("Audit.Share %v is not 0 to 1", cfg.Share)
	case cfg.Timeout < 0:
		return fmt.Errorf("Audit.Timeout %v is negative", cfg.Timeout)
	}
	return nil
}

// attach makes h, the middleware around the application, what the audit
// requests; the last Handler call wins.
func (a *auditor) attach(h http.Handler) { a.app.Store(&h) }

// enqueue hands the built file k, named name, to the worker; it never
// blocks: a file that does not fit the queue is not audited.
func (a *auditor) enqueue(k docKey, name string, gz []byte) {
	if a.app.Load() == nil {
		a.filesSkipped.Add(1)
		return
	}
	select {
	case a.jobs <- auditJob{k, name, gz}:
	default:
		a.filesSkipped.Add(1)
	}
}

// stop cancels the audit: the request under way ends at once (get), and
// none starts. Close calls it first, so that the audit's requests end
// while the builds do.
func (a *auditor) stop() { a.cancel() }

// close stops the audit and waits, until deadline at the latest, for the
// worker and for the application's handlers still serving its requests;
// a handler that ignores its context and its failing writes is then left
// to end on its own, which is logged.
func (a *auditor) close(deadline time.Time) {
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

func (a *auditor) run() {
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
func (a *auditor) audit(j auditJob) {
	app := *a.app.Load()
	heads, err := auditHeads(j.gz)
	if err != nil { // cannot happen: we compressed it
		a.log.Error("sitemap: audit: a built file does not decompress", "file", j.name, "err", err)
		return
	}
	sample := pagecheck.Sample(heads, max(1, int(math.Ceil(a.share*float64(len(heads))))))
	res := &AuditFile{File: j.name, At: a.now(), Findings: make(map[string]int)}
	changed := false // a URL of the file was left out or let back in
	for i, head := range sample {
		if a.ctx.Err() != nil {
			return
		}
		u := auditURLOf(head)
		if !a.onSite(u.loc) {
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
				res.Examples = append(res.Examples, AuditFinding{Kind: f.Kind, Loc: u.loc, Detail: f.Detail})
			}
		}
		if a.left != nil && a.left.add(u.raw, j.key, found, res.At) {
			changed = true
		}
	}
	if a.left != nil {
		changed = a.recheck(app, j.key) || changed
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

// recheck requests again the URLs left out of file k a minute ago or
// more, within the budget, and lets back in those that are fine now; it
// reports whether one was.
func (a *auditor) recheck(app http.Handler, k docKey) bool {
	back := false
	for _, raw := range a.left.of(k, a.now()) {
		if a.ctx.Err() != nil || !a.take() {
			break
		}
		u := auditURL{raw: raw, loc: string(appendUnescapedLoc(nil, []byte(raw)))}
		if a.left.keep(raw, a.check(app, u)) {
			continue
		}
		back = true
		a.log.Info("sitemap: audit lets a URL back in: it is neither noindex nor canonicalised elsewhere now",
			"file", a.site.fileName(k), "loc", u.loc)
	}
	return back
}

// take spends one URL of the minute's budget, if any is left, and if
// fewer than auditStuck of the application's handlers are left running.
func (a *auditor) take() bool {
	if a.running.Load() >= auditStuck {
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
func (a *auditor) onSite(loc string) bool {
	b := &a.site.base
	rest, ok := strings.CutPrefix(loc, b.scheme+"://"+b.host)
	return ok && (rest == "" || rest[0] == '/' || rest[0] == '?')
}

// check requests u through app and returns what is wrong with it: the
// checks of pagecheck.Check, then, for a 200, the lastmod's drift.
func (a *auditor) check(app http.Handler, u auditURL) []pagecheck.Finding {
	pu, err := url.Parse(u.loc)
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
	out = append(out, pagecheck.Check(u.loc, rec.status, rec.sent, rec.body)...)
	if rec.status == http.StatusOK {
		out = append(out, pagecheck.Drift(u.lastmod, pagecheck.ReadDates(rec.sent, rec.body), a.tol)...)
	}
	return out
}

// robotsRules returns Googlebot's rules in the robots.txt that app (the
// middleware) serves, read again after a minute. A robots.txt that does not
// answer 200 allows everything.
func (a *auditor) robotsRules(app http.Handler) *pagecheck.Rules {
	if now := a.now(); a.rules == nil || now.Before(a.rulesAt) || now.Sub(a.rulesAt) >= auditRobots {
		u, _ := url.Parse(a.site.base.url)
		u.Path, u.RawPath = "/robots.txt", ""
		a.rules, a.rulesAt = &pagecheck.Rules{}, now
		if rec, err := a.get(app, u); err == nil && rec.status == http.StatusOK {
			a.rules = pagecheck.ParseRobots(rec.body, "googlebot")
		}
	}
	return a.rules
}

// record keeps res as its file's last audit, and adds it to the totals.
func (a *auditor) record(res *AuditFile) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range res.Findings {
		a.kinds[k] += int64(n)
		a.findings.Add(int64(n))
	}
	a.behind.Add(int64(res.Findings[pagecheck.LastmodBehind]))
	a.ahead.Add(int64(res.Findings[pagecheck.LastmodAhead]))
	if _, ok := a.files[res.File]; !ok && len(a.files) >= auditFiles {
		var oldest *AuditFile
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
func (a *auditor) logFile(res *AuditFile) {
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

// report is the snapshot Sitemap.Audit returns.
func (a *auditor) report() AuditReport {
	r := AuditReport{Checked: a.checked.Load(), Skipped: a.skipped.Load(), FilesSkipped: a.filesSkipped.Load(),
		Findings: make(map[string]int64)}
	for _, k := range pagecheck.Kinds {
		r.Findings[k] = 0
	}
	if a.left != nil {
		n, _ := a.left.count(docKey{})
		r.LeftOut = int64(n)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range a.kinds {
		r.Findings[k] = n
	}
	for _, f := range a.files {
		r.Files = append(r.Files, f.clone())
	}
	slices.SortFunc(r.Files, func(x, y AuditFile) int { return strings.Compare(x.File, y.File) })
	return r
}

// fileAudit returns the last audit of the file name (as fileName gives
// it), for a view of that one file, without copying the others; false
// when it has none, or when the audit is off (a nil auditor).
func (a *auditor) fileAudit(name string) (AuditFile, bool) {
	if a == nil {
		return AuditFile{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.files[name]; f != nil {
		return f.clone(), true
	}
	return AuditFile{}, false
}

// clone is a copy of f that shares nothing with it.
func (f *AuditFile) clone() AuditFile {
	c := *f
	c.Findings = maps.Clone(f.Findings)
	c.Examples = slices.Clone(f.Examples)
	return c
}
