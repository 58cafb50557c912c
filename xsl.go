package sitemap

import (
	"net/http"
	"strconv"

	"github.com/freshmap/sitemap/internal/htmlview"
)

// The stylesheet that shows a sitemap in a browser (Config.Stylesheet):
// every file names BASE/sitemap.xsl in an <?xml-stylesheet?> instruction
// (internal/htmlview holds the stylesheet and writes the instruction),
// and it is served here, from the site itself.

// xslName is the stylesheet's file name, after the base path.
const xslName = htmlview.StylesheetName

var hdrXSLCT = []string{"text/xsl; charset=utf-8"}

// xslFile is the stylesheet as served, and the instruction that names it.
type xslFile struct {
	path        string // the base path and xslName
	instruction string // the <?xml-stylesheet?> line, ending in '\n'
	etag        []string
}

func newXSLFile(prefix string) *xslFile {
	path := prefix + xslName
	return &xslFile{
		path:        path,
		instruction: htmlview.StylesheetInstruction(path),
		etag:        []string{`"xsl-` + strconv.FormatUint(fnvHash([]byte(htmlview.Stylesheet)), 36) + `"`},
	}
}

// serve answers with the stylesheet and the sitemap's Cache-Control
// (serveFixed).
func (x *xslFile) serve(w http.ResponseWriter, r *http.Request, cacheControl []string) {
	serveFixed(w, r, htmlview.Stylesheet, hdrXSLCT, x.etag, cacheControl)
}
