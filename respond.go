package sitemap

import (
	"hash/fnv"
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

// fnvHash is the hash a fixed file's ETag names.
func fnvHash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
