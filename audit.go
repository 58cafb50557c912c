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
// URL, and allowed to Googlebot by the robots.txt the middleware serves.
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
	// deadline; the application must heed it). Zero means 10 seconds.
	Timeout time.Duration
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
	Findings     map[string]int64 // findings by kind: status, redirect, noindex, canonical, robots, error (each present, zero or not)
	Files        []AuditFile      // the last audit of each file (at most 1,024, the latest), by file name
}

// AuditFile is the last audit of one sitemap file.
type AuditFile struct {
	File     string         // its name: sitemap-products-3.xml.gz
	At       time.Time      // when it was audited
	Checked  int            // its URLs requested
	Findings map[string]int // findings by kind
	Examples []AuditFinding // the first findings, at most 5
}

// AuditFinding is one thing wrong with a listed URL.
type AuditFinding struct {
	Kind   string // status, redirect, noindex, canonical, robots or error
	Loc    string // the URL as listed
	Detail string // what was seen: "404", "301 /new", "X-Robots-Tag: noindex", the other canonical, the Disallow rule
}

// auditor runs the self-audit: one goroutine takes the built files from a
// short queue and requests their sampled URLs one at a time. It owns the
// rate budget, the robots.txt rules and the findings.
type auditor struct {
	site      *site
	log       *slog.Logger
	now       func() time.Time
	perMinute int
	share     float64
	timeout   time.Duration
	app       atomic.Pointer[http.Handler] // what Sitemap.Handler wraps, through the middleware
	jobs      chan auditJob
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}

	// Read by the worker alone.
	window  time.Time // the start of the budget's minute
	spent   int       // URLs requested in it
	rules   *pagecheck.Rules
	rulesAt time.Time

	checked, skipped, filesSkipped atomic.Int64
	findings                       atomic.Int64
	mu                             sync.Mutex
	kinds                          map[string]int64
	files                          map[string]*AuditFile
}

type auditJob struct {
	name string
	gz   []byte // the file as built; never changed
}

func newAuditor(st *site, cfg *Audit, log *slog.Logger, now func() time.Time) *auditor {
	a := &auditor{site: st, log: log, now: now, perMinute: cmp.Or(cfg.PerMinute, 60), share: cmp.Or(cfg.Share, 0.01),
		timeout: cmp.Or(cfg.Timeout, 10*time.Second), jobs: make(chan auditJob, auditQueue), done: make(chan struct{}),
		kinds: make(map[string]int64), files: make(map[string]*AuditFile)}
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

// enqueue hands a built file to the worker; it never blocks: a file that
// does not fit the queue is not audited.
func (a *auditor) enqueue(name string, gz []byte) {
	if a.app.Load() == nil {
		a.filesSkipped.Add(1)
		return
	}
	select {
	case a.jobs <- auditJob{name, gz}:
	default:
		a.filesSkipped.Add(1)
	}
}

// close stops the worker, waiting for the request under way for at most
// wait.
func (a *auditor) close(wait time.Duration) {
	a.cancel()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-a.done:
	case <-t.C:
		a.log.Warn("sitemap: Close gave up waiting for the audit's request; the application ignores its context", "waited", wait)
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

// audit checks a sample of the URLs of one built file, and records and
// logs what it found.
func (a *auditor) audit(j auditJob) {
	app := *a.app.Load()
	locs, err := locsOf(j.gz)
	if err != nil { // cannot happen: we compressed it
		a.log.Error("sitemap: audit: a built file does not decompress", "file", j.name, "err", err)
		return
	}
	sample := a.sample(locs)
	res := &AuditFile{File: j.name, At: a.now(), Findings: make(map[string]int)}
	for i, loc := range sample {
		if a.ctx.Err() != nil {
			return
		}
		if !a.onSite(loc) {
			a.skipped.Add(1)
			continue
		}
		if !a.take() {
			a.skipped.Add(int64(len(sample) - i))
			break
		}
		res.Checked++
		for _, f := range a.check(app, loc) {
			res.Findings[f.Kind]++
			if len(res.Examples) < auditExamples {
				res.Examples = append(res.Examples, AuditFinding{Kind: f.Kind, Loc: loc, Detail: f.Detail})
			}
		}
	}
	if res.Checked == 0 {
		return
	}
	a.logFile(res)
	a.record(res) // last: a reader that sees the file's audit sees its log line
}

// sample picks ceil(share × n) of locs, at least one, at random, in the
// file's order.
func (a *auditor) sample(locs []string) []string {
	return pagecheck.Sample(locs, max(1, int(math.Ceil(a.share*float64(len(locs))))))
}

// take spends one URL of the minute's budget, if any is left.
func (a *auditor) take() bool {
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

// check requests loc through app and returns what is wrong with it.
func (a *auditor) check(app http.Handler, loc string) []pagecheck.Finding {
	u, err := url.Parse(loc)
	if err != nil { // cannot happen: the encoder wrote it
		return []pagecheck.Finding{{Kind: pagecheck.Error, Detail: err.Error()}}
	}
	var out []pagecheck.Finding
	if ok, by := a.robotsRules(app).Allowed(u.RequestURI()); !ok {
		out = append(out, pagecheck.Finding{Kind: pagecheck.Robots, Detail: by})
	}
	rec, err := a.get(app, u)
	a.checked.Add(1)
	if err != nil {
		return append(out, pagecheck.Finding{Kind: pagecheck.Error, Detail: err.Error()})
	}
	return append(out, pagecheck.Check(loc, rec.status, rec.sent, rec.body)...)
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

// locsOf returns the location of every URL of a built page (gzipped).
func locsOf(gz []byte) ([]string, error) {
	var locs []string
	var buf []byte
	err := eachLoc(gz, func(loc []byte) {
		buf = appendUnescapedLoc(buf[:0], loc)
		locs = append(locs, string(buf))
	})
	return locs, err
}
