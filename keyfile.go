package sitemap

import (
	"net/http"
	"strconv"
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

// serve answers with the key as text/plain (serveFixed).
func (k *keyFile) serve(w http.ResponseWriter, r *http.Request) {
	serveFixed(w, r, k.body, hdrTextCT, k.etag, nil)
}
