package sitemap

import (
	_ "embed"
	"net/http"
	"strconv"
)

// The stylesheet that shows a sitemap in a browser (Config.Stylesheet):
// every file names BASE/sitemap.xsl in an <?xml-stylesheet?> instruction,
// and a browser that opens the file fetches it and shows a table. The
// instruction is a path without scheme or host, so the stylesheet always
// comes from the site itself: browsers apply XSLT only from the document's
// own origin. Crawlers read the XML and ignore the instruction; the
// schemas allow it before the root element.

// xslName is the stylesheet's file name, after the base path.
const xslName = "sitemap.xsl"

//go:embed sitemap.xsl
var xslBody string

var hdrXSLCT = []string{"text/xsl; charset=utf-8"}

// xslFile is the stylesheet as served, and the instruction that names it.
type xslFile struct {
	path        string // the base path and xslName
	instruction string // the <?xml-stylesheet?> line, ending in '\n'
	etag        []string
}

func newXSLFile(prefix string) *xslFile {
	path := prefix + xslName
	pi := `<?xml-stylesheet type="text/xsl" href="` + string(appendAttr(nil, path)) + `"?>` + "\n"
	return &xslFile{
		path:        path,
		instruction: pi,
		etag:        []string{`"xsl-` + strconv.FormatUint(fnvHash([]byte(xslBody)), 36) + `"`},
	}
}

// serve answers with the stylesheet and the sitemap's Cache-Control
// (serveFixed).
func (x *xslFile) serve(w http.ResponseWriter, r *http.Request, cacheControl []string) {
	serveFixed(w, r, xslBody, hdrXSLCT, x.etag, cacheControl)
}
