package parse

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Documents that real generators write, each a case of issue 18.

const body = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/</loc></url></urlset>`

// TestBOM: a UTF-8 byte-order mark before <?xml is read past (xmllint
// accepts it), gzip or not.
func TestBOM(t *testing.T) {
	doc := "\xef\xbb\xbf" + `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + body
	for name, in := range map[string]string{"plain": doc, "gzip": gz(doc)} {
		urls, errs := parseString(in)
		if len(errs) != 0 || len(urls) != 1 {
			t.Errorf("%s: %v, %v; want one URL", name, urls, errs)
		}
	}
	urls, errs := parseString("\xef\xbb\xbf" + body) // no declaration
	if len(errs) != 0 || len(urls) != 1 {
		t.Errorf("BOM without a declaration: %v, %v", urls, errs)
	}
}

// TestDeclarationFirst: the XML declaration may only be the very first
// bytes; white space or anything else before it is not well-formed.
func TestDeclarationFirst(t *testing.T) {
	for name, doc := range map[string]string{
		"space":   " " + `<?xml version="1.0" encoding="UTF-8"?>` + body,
		"newline": "\n" + `<?xml version="1.0" encoding="UTF-8"?>` + body,
		"comment": `<!-- x --><?xml version="1.0" encoding="UTF-8"?>` + body,
	} {
		urls, errs := parseString(doc)
		if len(errs) != 1 || len(urls) != 0 || !strings.Contains(errs[0].Error(), "declaration") {
			t.Errorf("%s: %v, %v; want one error about the declaration", name, urls, errs)
		}
	}
}

// TestNotUTF8: Latin-1 (declared or not) and UTF-16 get an error that says
// a sitemap must be UTF-8.
func TestNotUTF8(t *testing.T) {
	utf16 := func(s string, le bool) string {
		var b strings.Builder
		if le {
			b.WriteString("\xff\xfe")
		} else {
			b.WriteString("\xfe\xff")
		}
		for _, c := range []byte(s) {
			if le {
				b.WriteByte(c)
				b.WriteByte(0)
			} else {
				b.WriteByte(0)
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	decl := `<?xml version="1.0" encoding="UTF-16"?>` + body
	for name, doc := range map[string]string{
		"latin-1 declared":   `<?xml version="1.0" encoding="ISO-8859-1"?>` + body,
		"windows-1252":       `<?xml version="1.0" encoding="windows-1252"?>` + body,
		"latin-1 undeclared": strings.Replace(body, "example.com/", "example.com/caf\xe9", 1),
		"utf-16le":           utf16(decl, true),
		"utf-16be":           utf16(decl, false),
		"utf-16 no BOM":      utf16(decl, false)[2:],
	} {
		_, errs := parseString(doc)
		if len(errs) != 1 || !errors.Is(errs[0], ErrEncoding) || !strings.Contains(errs[0].Error(), "must be UTF-8") {
			t.Errorf("%s: %v; want one ErrEncoding saying sitemaps must be UTF-8", name, errs)
		}
	}
	if _, errs := parseString(`<?xml version="1.0" encoding="utf-8"?>` + body); len(errs) != 0 {
		t.Errorf("utf-8 in lower case: %v", errs)
	}
}

// TestRootNamespace: a <urlset> without the namespace, or with another,
// says so.
func TestRootNamespace(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"none":  {`<urlset><url><loc>https://example.com/</loc></url></urlset>`, `<urlset> has no namespace; want xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`},
		"0.84":  {`<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"></urlset>`, `<urlset> is in the namespace "http://www.google.com/schemas/sitemap/0.84"; want xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`},
		"index": {`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`, `want <urlset>`},
	} {
		_, errs := parseString(tc.doc)
		if len(errs) != 1 || !errors.Is(errs[0], ErrRoot) || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: %v; want ErrRoot saying %s", name, errs, tc.want)
		}
	}
}

// TestUndeclaredPrefix: an xhtml: (or image:) prefix with no xmlns:
// declaration is reported once per document, as a value error that lets
// reading go on.
func TestUndeclaredPrefix(t *testing.T) {
	link := `<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>`
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
		`<url><loc>https://example.com/</loc>` + link + `</url>` +
		`<url><loc>https://example.com/2</loc>` + link + `</url></urlset>`
	var n, bad int
	for u, err := range URLs(strings.NewReader(doc), Limits{}) {
		n++
		if err != nil {
			bad++
			if u.Loc != "https://example.com/" || !errors.Is(err, ErrPrefix) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `prefix "xhtml" is not declared`) {
				t.Errorf("%s: error %v, want ErrPrefix about xhtml on the first URL", u.Loc, err)
			}
		}
	}
	if n != 2 || bad != 1 {
		t.Errorf("%d URLs, %d errors; want 2 URLs and one error for the document", n, bad)
	}
}

// TestLinkWithoutHreflang: an xhtml:link rel="alternate" without hreflang
// (Google's mobile annotation with media=) is not an hreflang alternate.
func TestLinkWithoutHreflang(t *testing.T) {
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` +
		`<url><loc>https://example.com/</loc><xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="https://m.example.com/"/>` +
		`<xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/></url></urlset>`
	urls, errs := parseString(doc)
	if len(errs) != 0 || len(urls) != 1 || len(urls[0].Alternates) != 1 || urls[0].Alternates[0].Hreflang != "en" {
		t.Errorf("%+v, %v; want one URL with only the hreflang alternate", urls, errs)
	}
}

// gz returns s gzip-compressed.
func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}
