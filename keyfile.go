package sitemap

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// keyFile is the IndexNow key file, BASE/KEY.txt, whose content is the key:
// the proof, for the search engines, that the URLs sent come from the site.
type keyFile struct {
	path string // the base path, the key and ".txt"
	body string
	etag []string
}

func newKeyFile(prefix, key string) *keyFile {
	return &keyFile{
		path: prefix + key + ".txt",
		body: key,
		etag: []string{`"` + strconv.FormatUint(fnvHash([]byte(key)), 36) + `"`},
	}
}

// serve answers a GET or HEAD with the key as text/plain, with a strong
// ETag (304 through http.ServeContent), and any other method with 405.
func (k *keyFile) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["X-Robots-Tag"] = hdrNoindex
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = hdrAllow
		serveError(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h["Content-Type"] = hdrTextCT
	h["Etag"] = k.etag
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(k.body))
}
