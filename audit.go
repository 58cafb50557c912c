package sitemap

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/xmlenc"
)

// The self-audit's public face. The audit itself (the worker, its budget,
// the in-process requests, the URLs left out) is package internal/audit,
// which knows nothing of this package: this file translates Config.Audit
// into its Options, with the site's base URL, and its answers back as
// AuditReport; the Sitemap holds the Auditor and calls it.

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

// newAuditor starts the audit of the files built under the base URL
// base, keyed by K; invalidate, when LeaveOut is on, is how it has a file
// rebuilt whose URLs it left out or let back in.
func newAuditor[K comparable](base string, cfg *Audit, log *slog.Logger, now func() time.Time, invalidate func(K)) (*audit.Auditor[K], error) {
	return audit.New(audit.Options[K]{PerMinute: cfg.PerMinute, Share: cfg.Share, Timeout: cfg.Timeout,
		LastmodBehind: cfg.LastmodBehind, LastmodAhead: cfg.LastmodAhead, LeaveOut: cfg.LeaveOut,
		Base: base, Header: AuditHeader, UserAgent: auditUserAgent, Logger: log, Now: now, Invalidate: invalidate,
		Heads: audit.Heads, Parse: audit.ParseHead, WrittenLoc: xmlenc.WrittenLoc})
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

// auditReport is r as Sitemap.Audit returns it.
func auditReport(r audit.Report) AuditReport {
	out := AuditReport{Checked: r.Checked, Skipped: r.Skipped, FilesSkipped: r.FilesSkipped, Findings: r.Findings, LeftOut: r.LeftOut}
	for _, f := range r.Files {
		out.Files = append(out.Files, auditFile(f))
	}
	return out
}

// auditFile is f, the audit's copy, as AuditFile.
func auditFile(f audit.File) AuditFile {
	out := AuditFile{File: f.File, At: f.At, Checked: f.Checked, Findings: f.Findings, LeftOut: f.LeftOut}
	for _, e := range f.Examples {
		out.Examples = append(out.Examples, AuditFinding(e))
	}
	return out
}
