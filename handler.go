package sitemap

import (
	"cmp"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/gzread"
	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/secstats"
)

// ServeHTTP serves the sitemap files (and a minimal robots.txt at
// /robots.txt, since no application stands behind a bare handler), and
// the IndexNow key file and the stylesheet if configured. Any other path
// is 404. Mount it on a router as it is, without stripping the path
// prefix: it matches the full request path against the base URL's.
func (s *Sitemap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := s.site
	if r.URL.Path == "/robots.txt" {
		s.robotsNow(r.Context()).Serve(w, r, nil)
		return
	}
	if kf := st.keyFile; kf != nil && r.URL.Path == kf.Path { // Config.IndexNow (internal/indexnow)
		respond.Fixed(w, r, kf.Body, respond.HdrTextCT, kf.ETag, nil)
		return
	}
	if st.xsl != nil && r.URL.Path == st.xsl.Path { // Config.Stylesheet (internal/htmlview)
		respond.Fixed(w, r, htmlview.Stylesheet, respond.HdrXSLCT, st.xsl.ETag, st.headers.cacheControl)
		return
	}
	h := w.Header()
	h["X-Robots-Tag"] = respond.HdrNoindex
	// The path as the client wrote it: a name is served under its one
	// canonical form, never under a percent-encoded alias such as
	// /%73itemap-1.xml.gz (TestPercentEncodedAlias). For the names we
	// serve, which need no escaping, this is r.URL.Path, with no copy.
	rt, ok := st.route(r.URL.EscapedPath())
	if !ok {
		s.notFound(w, &s.rep.perSection.Other)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = respond.HdrAllow
		respond.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	k, file := rt.key, rt.key // file: the file's key in the crawl log
	if k.kind == docIndex {
		file = indexFileKey(rt.file)
	}
	now := s.docs.now()                                   // the request's one clock reading: the cache's and the crawl log's
	q := respond.ReadReqHeader(r.Header, s.crawls != nil) // the request's header, read once
	var who crawllog.Slot                                 // who asks, known this early only for VerifiedOnly (Log.WhoServed)
	if s.crawls.VerifiedOnly() {
		who = s.crawls.Who(r, q.UA, now.Unix())
		if s.crawls.Forbids(who) {
			respond.Error(w, "403 forbidden", http.StatusForbidden)
			s.crawls.Record(file.crawlFile(len(st.sections)), who, now.Unix(), q.Validators, http.StatusForbidden, 0, false)
			return
		}
	}
	e, err := s.docs.get(r.Context(), k, now)
	if err == nil && k.kind == docIndex {
		if e = e.file(rt.file); e == nil {
			err = errNotFound // an index file past the last
		}
	}
	var tags []string // the file's CDN key (purge.go)
	if err == nil && s.rep.purger != nil {
		tags = st.tagsOf(e, k, rt.file)
	}
	if err == nil && rt.rep == asText {
		e, err = s.docs.text(k, e)
	}
	owner := e // the cached copy whose form e is (its HTML part), which counts e's plain copy
	if err == nil && rt.rep == asHTML {
		notes := func() []byte { // what the view says live about the file (html.go)
			if ns := s.notes.of(k); len(ns) > 0 {
				return htmlview.AppendNotes(nil, ns)
			}
			return nil
		}
		e, err = s.docs.htmlPart(r.Context(), k, e, rt.part, notes)
		h["Content-Security-Policy"] = hdrHTMLCSP
		if st.htmlIndex {
			delete(h, "X-Robots-Tag")
		}
	}
	switch {
	case errors.Is(err, errNotFound):
		s.notFound(w, s.rep.of(k)) // not logged: a path is no file
		return
	case err != nil:
		if r.Context().Err() != nil {
			return // the client left; nobody reads an answer
		}
		s.rep.unavailable(r.Context(), k, err)
		h["Retry-After"] = st.headers.retryAfter
		respond.Error(w, unavailableText(err, st.retryAfter), http.StatusServiceUnavailable)
		if s.crawls != nil {
			s.crawls.Record(file.crawlFile(len(st.sections)), s.crawls.WhoServed(r, q.UA, who, now.Unix()), now.Unix(), q.Validators, http.StatusServiceUnavailable, 0, false)
		}
		return
	}
	if tags != nil {
		h["Surrogate-Key"], h["Cache-Tag"] = tags, tags
	}
	// The Date is the clock reading the Last-Modified is held to
	// (serveEntry), not a later one that net/http would take.
	h["Date"] = s.date.Header(now)
	status, n, handed := s.serveEntry(w, r, &q, k, owner, e, rt.rep, s.rep.of(k), now)
	if s.crawls != nil && rt.rep != asHTML { // the view is for people; the log is of the files crawlers fetch
		// Only a conditional or ranged request can have validators.
		sec := now.Unix()
		s.crawls.Record(file.crawlFile(len(st.sections)), s.crawls.WhoServed(r, q.UA, who, sec), sec, handed && q.Validators, status, n, true)
	}
}

func (s *Sitemap) notFound(w http.ResponseWriter, c *secstats.Counters) {
	s.rep.stats.notFound.Add(1)
	c.NotFound.Add(1)
	respond.Error(w, "404 page not found", http.StatusNotFound)
}

// serveEntry sets the representation's headers and answers with
// serveCached: a full 200 in as few writes as its bytes allow, anything
// conditional or ranged (304, 412, 206, 416) by http.ServeContent. The
// gzip representations are e's bytes as they are, written in one write;
// the plain one is e's plain copy if it has one (plainCopyOf), written
// the same way, or else decompressed as it is written (internal/gzread), in
// large writes, and only as far as the response needs. e is owner, the
// copy of k, or a form of it (an HTML part, whose plain copy is counted
// with owner); the response is counted in c too. It returns the response's status
// and body bytes, and whether the request was conditional or ranged
// (serveCached).
//
// now is the response's Date. A Last-Modified later than it is left out
// (RFC 9110 §8.8.2.1: never later than Date): a clock may run up to
// maxAhead ahead of the server's time, a change time's (clock.go, rule 5)
// up to exactAhead, and a floor (rule 3) a little more, but HTTP forbids
// telling it. The ETag still validates
// those bytes, and once Date reaches their clock they are served under it
// (TestLastModifiedNotAfterDate); no other bytes are given that clock in
// the meantime, so nothing of the clock's promises changes.
func (s *Sitemap) serveEntry(w http.ResponseWriter, r *http.Request, q *respond.ReqHeader, k docKey, owner, e *entry, rep representation, c *secstats.Counters, now time.Time) (int, int64, bool) {
	h := w.Header()
	modtime, lastMod := e.lastMod, e.lastModHdr
	if modtime.After(now) {
		modtime, lastMod = time.Time{}, nil
	}
	if cc := s.site.headers.cacheControl; cc != nil {
		h["Cache-Control"] = cc
	}
	cw := respond.Writer{ResponseWriter: w}
	r = wholeIfMultiRange(r, q)
	var plain *gzread.Body
	ct := respond.HdrXMLCT
	switch rep {
	case asText:
		ct = respond.HdrTextCT
	case asAtom:
		ct = respond.HdrAtomCT
	case asHTML:
		ct = hdrHTMLCT
	}
	body := e.gz
	switch {
	case rep == asGzipFile:
		h["Content-Type"] = respond.HdrGzipCT
		h["Etag"] = e.etagFile
		cw.Length = e.gzLen
	case respond.AcceptsGzip(q.Accept):
		h["Content-Type"] = ct
		h["Vary"] = respond.HdrVary
		h["Content-Encoding"] = respond.HdrGzip
		h["Etag"] = e.etagGzip
		cw.Length = e.gzLen // ServeContent sends none with a Content-Encoding
	default:
		h["Content-Type"] = ct
		h["Vary"] = respond.HdrVary
		h["Etag"] = e.etagPlain
		if cp := s.docs.plainCopy(k, owner, e, r.Method == http.MethodGet && !q.Conditional()); cp != nil {
			body, cw.Length = cp.xml, cp.length
			break
		}
		plain = gzread.Get(e.gz, e.size)
		defer gzread.Put(plain) // after serveCached: nothing reads it then
		cw.Hold = true
	}
	var handed bool
	if plain == nil {
		cw.Body = respond.NewBody(body)
		handed = respond.Cached(&cw, r, q.Conditional(), modtime, lastMod, &cw.Body, int64(len(body)), cw.Length)
	} else {
		handed = respond.Cached(&cw, r, q.Conditional(), modtime, lastMod, plain, e.size, nil)
	}
	if plain != nil && plain.Err() != nil { // cannot happen: we compressed it
		s.rep.log.ErrorContext(r.Context(), "sitemap: cached page does not decompress", "err", plain.Err())
		if cw.Sent {
			panic(http.ErrAbortHandler) // the client must not take a cut body for the page
		}
		respond.Error(w, "internal error", http.StatusInternalServerError)
		return http.StatusInternalServerError, cw.N, handed
	}
	cw.Release()
	if cw.Status == http.StatusNotModified {
		s.rep.stats.notModified.Add(1)
		c.NotModified.Add(1)
	}
	s.rep.stats.bytesServed.Add(cw.N)
	c.BytesServed.Add(cw.N)
	return cmp.Or(cw.Status, http.StatusOK), cw.N, handed
}

// wholeIfMultiRange returns r without its Range header if that asks for
// several ranges, so that the file is sent whole (200), as RFC 9110 §14.2
// allows; crawlers do not send such requests (TestMultiRange). Served as
// asked, ranges that overlap, or a few hundred one-byte ranges, would
// send many times the file's size in parts and part headers. For the
// plain XML, the ranges could also come in any order, and each one before
// the last would restart the decompression, and ServeContent would read
// the body from a goroutine of its own, which may outlive the call. q is
// r's header as read (readReqHeader), and loses its Range too.
func wholeIfMultiRange(r *http.Request, q *respond.ReqHeader) *http.Request {
	if !strings.Contains(q.Range, ",") { // the value ServeContent reads
		return r
	}
	r = r.WithContext(r.Context()) // a shallow copy
	r.Header = r.Header.Clone()
	delete(r.Header, "Range")
	q.Range = ""
	return r
}
