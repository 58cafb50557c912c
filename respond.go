package sitemap

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// The responses that are no document: an error, and a small fixed file
// (the IndexNow key file, the stylesheet).

// serveError answers with an error status and a fixed text, first removing
// the headers that describe a representation (as net/http's own file
// server does): a validator or cache directive set before the error would
// let a client or a CDN keep the error page as if it were the sitemap.
func serveError(w http.ResponseWriter, text string, code int) {
	h := w.Header()
	for _, k := range [...]string{"Etag", "Last-Modified", "Cache-Control", "Content-Encoding", "Vary", "Content-Range", "Accept-Ranges"} {
		delete(h, k)
	}
	http.Error(w, text, code) // also drops Content-Length
}

// unavailableText is the body of a 503 for err: why, in words that are
// safe for anyone to read. The Source's own error (a database's message,
// a host name, a query) never reaches the public: a failed build is
// named by its failure reference and time, which its log line ("sitemap:
// build failed", attribute failure) carries with the cause
// (TestUnavailableSaysWhy).
func unavailableText(err error, retryAfter time.Duration) string {
	const head = "sitemap temporarily unavailable: "
	var fe *failureError
	switch {
	case errors.As(err, &fe) && errors.Is(err, errBackoff):
		return head + "the last build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause); it is retried after " + retryAfter.String()
	case errors.As(err, &fe):
		return head + "the build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause)"
	case errors.Is(err, errBackoff):
		return head + "its last build failed; it is retried after " + retryAfter.String()
	case errors.Is(err, errWaitTimeout):
		return head + "its build takes longer than the build timeout"
	case errors.Is(err, errBusy):
		return head + "too many requests are waiting for builds"
	case errors.Is(err, errClosed):
		return head + "the server is shutting down"
	}
	return head + "it could not be built"
}

// serveFixed answers a GET or HEAD of a small file served as it is, such
// as the IndexNow key file or the stylesheet: body with the Content-Type
// ct, its strong ETag (304 through http.ServeContent) and cacheControl,
// if any. Any other method gets 405.
func serveFixed(w http.ResponseWriter, r *http.Request, body string, ct, etag, cacheControl []string) {
	h := w.Header()
	h["X-Robots-Tag"] = hdrNoindex
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = hdrAllow
		serveError(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if cacheControl != nil {
		h["Cache-Control"] = cacheControl
	}
	h["Content-Type"] = ct
	h["Etag"] = etag
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body))
}
