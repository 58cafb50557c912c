package htmlview

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// The stylesheet is well-formed XML, an XSLT 1.0 stylesheet.
func TestStylesheetWellFormed(t *testing.T) {
	d := xml.NewDecoder(strings.NewReader(Stylesheet))
	var root *xml.StartElement
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == nil {
			root = &se
		}
	}
	if root == nil || root.Name != (xml.Name{Space: "http://www.w3.org/1999/XSL/Transform", Local: "stylesheet"}) {
		t.Fatalf("root is %v, want xsl:stylesheet", root)
	}
}

// The href is the base path, escaped as an attribute value.
func TestStylesheetInstruction(t *testing.T) {
	for prefix, want := range map[string]string{
		"/":          `href="/sitemap.xsl"`,
		"/shop/":     `href="/shop/sitemap.xsl"`,
		"/a&b/%22x/": `href="/a&amp;b/%22x/sitemap.xsl"`,
	} {
		if got := StylesheetInstruction(prefix + StylesheetName); !strings.Contains(got, want) || !strings.HasSuffix(got, "?>\n") {
			t.Errorf("%s: %q, want %s", prefix, got, want)
		}
	}
}
