package htmlview

import (
	_ "embed"
	"hash/fnv"
	"strconv"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// The stylesheet that shows a sitemap file in a browser: a file names it
// in an <?xml-stylesheet?> instruction, and a browser that opens the file
// fetches it and shows a table. The instruction names a path without
// scheme or host, so that the stylesheet comes from the site itself:
// browsers apply XSLT only from the document's own origin. Crawlers read
// the XML and ignore the instruction; the schemas allow it before the
// root element. Browsers are removing XSLT: the HTML view is the one
// that lasts.

// StylesheetName is the stylesheet's file name.
const StylesheetName = "sitemap.xsl"

// Stylesheet is the XSLT 1.0 stylesheet, as served.
//
//go:embed sitemap.xsl
var Stylesheet string

// StylesheetInstruction is the <?xml-stylesheet?> line, ending in '\n',
// that names the stylesheet at path (as a URL path, escaped here).
func StylesheetInstruction(path string) string {
	return `<?xml-stylesheet type="text/xsl" href="` + string(xmlenc.AppendAttr(nil, path)) + `"?>` + "\n"
}

// StylesheetFile is the stylesheet as a site serves it (Config.Stylesheet):
// where, the instruction every file writes to name it, and its ETag.
type StylesheetFile struct {
	Path        string   // the base path and StylesheetName
	Instruction string   // the <?xml-stylesheet?> line, ending in '\n'
	ETag        []string // strong, from the stylesheet's bytes
}

// NewStylesheetFile returns the stylesheet served under the base path
// basePath (ending in '/').
func NewStylesheetFile(basePath string) *StylesheetFile {
	path := basePath + StylesheetName
	h := fnv.New64a()
	h.Write([]byte(Stylesheet))
	return &StylesheetFile{
		Path:        path,
		Instruction: StylesheetInstruction(path),
		ETag:        []string{`"xsl-` + strconv.FormatUint(h.Sum64(), 36) + `"`},
	}
}
