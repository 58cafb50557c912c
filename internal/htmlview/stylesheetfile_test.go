package htmlview

import (
	"strings"
	"testing"
)

// The stylesheet file under a base path: its path, the instruction that
// names that path, and a strong ETag that changes with the stylesheet.
func TestNewStylesheetFile(t *testing.T) {
	f := NewStylesheetFile("/shop/")
	if f.Path != "/shop/sitemap.xsl" || f.Instruction != `<?xml-stylesheet type="text/xsl" href="/shop/sitemap.xsl"?>`+"\n" {
		t.Errorf("path %q, instruction %q", f.Path, f.Instruction)
	}
	if len(f.ETag) != 1 || !strings.HasPrefix(f.ETag[0], `"xsl-`) || !strings.HasSuffix(f.ETag[0], `"`) || len(f.ETag[0]) < 8 {
		t.Errorf("ETag %q, want one strong tag", f.ETag)
	}
	saved := Stylesheet
	defer func() { Stylesheet = saved }()
	Stylesheet += " "
	if g := NewStylesheetFile("/shop/"); g.ETag[0] == f.ETag[0] {
		t.Errorf("ETag %q did not change with the stylesheet", g.ETag[0])
	}
}
