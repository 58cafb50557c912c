package parse

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Namespaces matched by URI; their prefixes in a document do not matter.
const (
	nsSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	nsImage   = "http://www.google.com/schemas/sitemap-image/1.1"
	nsVideo   = "http://www.google.com/schemas/sitemap-video/1.1"
	nsNews    = "http://www.google.com/schemas/sitemap-news/0.9"
	nsXHTML   = "http://www.w3.org/1999/xhtml"
)

// frame is an open element and where its start tag began.
type frame struct {
	name      xml.Name
	line, col int
}

// parser walks the token stream of one document. Its helpers each consume
// one whole element, so that the caller is always between elements.
type parser struct {
	d         *xml.Decoder
	in        *input
	lim       Limits
	stack     []frame // open elements
	last      frame   // the element most recently closed
	line, col int     // where the next token starts
	entries   int
	buf       []byte // an element's text, or a line of a plain-text sitemap
	// where the entry last read starts (Document.Pos)
	entryLine, entryCol int
	inv                 *Error // the first invalid value of the current entry

	charset    string          // an encoding the XML declaration named, not UTF-8
	undeclared map[string]bool // prefixes already reported (ErrPrefix)

	onStart func(name xml.Name, depth, line, col int) // Open's hook, or nil
}

func newParser(r io.Reader, lim Limits) (*parser, error) {
	in, err := newInput(r, lim)
	if err != nil {
		return nil, &Error{Line: 1, Column: 1, Err: err}
	}
	d := xml.NewDecoder(in)
	d.Strict = true // only the five predefined entities and character references
	d.Entity = nil
	p := &parser{d: d, in: in, lim: lim, stack: make([]frame, 0, 8), line: 1, col: 1}
	d.CharsetReader = func(charset string, _ io.Reader) (io.Reader, error) {
		p.charset = charset // the decoder calls this for any encoding but UTF-8
		return nil, ErrEncoding
	}
	return p, nil
}

// token returns the next start tag, end tag or text, skipping comments and
// processing instructions, and refusing directives (DOCTYPE, ENTITY).
func (p *parser) token() (xml.Token, error) {
	for {
		off := p.d.InputOffset()
		p.line, p.col = p.in.pos(off)
		tok, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return nil, err
			}
			return nil, p.fatal(p.encodingError(err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(p.stack) >= maxDepth {
				return nil, p.fatal(ErrTooDeep)
			}
			p.stack = append(p.stack, frame{t.Name, p.line, p.col})
			p.prefix(t.Name)
			if p.onStart != nil {
				p.onStart(t.Name, len(p.stack), p.line, p.col)
			}
			return t, nil
		case xml.ProcInst:
			if t.Target == "xml" && off != 0 {
				return nil, &Error{Line: p.line, Column: p.col, Err: errors.New("the XML declaration <?xml …?> is not the first bytes of the document (white space or anything else before it is not well-formed)")}
			}
		case xml.EndElement:
			p.last = p.stack[len(p.stack)-1]
			p.stack = p.stack[:len(p.stack)-1]
			return t, nil
		case xml.CharData:
			return t, nil
		case xml.Directive:
			return nil, p.fatal(ErrDirective)
		}
	}
}

// encodingError tells that err, from the decoder, comes of a document that
// is not UTF-8, or returns it as it is.
func (p *parser) encodingError(err error) error {
	var se *xml.SyntaxError
	switch {
	case p.charset != "":
		return fmt.Errorf("%w: the XML declaration says encoding=%q", ErrEncoding, p.charset)
	case errors.As(err, &se) && se.Msg == "invalid UTF-8":
		return fmt.Errorf("%w: invalid UTF-8 (Latin-1, or another encoding?)", ErrEncoding)
	}
	return err
}

// prefix reports, once per document, an element whose prefix no xmlns:
// declares: the decoder leaves the prefix itself as its namespace, and a
// namespace is a URI, which holds a colon.
func (p *parser) prefix(n xml.Name) {
	if n.Space == "" || strings.Contains(n.Space, ":") || p.undeclared[n.Space] || p.inv != nil {
		return
	}
	if p.undeclared == nil {
		p.undeclared = map[string]bool{}
	}
	p.undeclared[n.Space] = true
	p.inv = &Error{Line: p.line, Column: p.col, Path: path(p.stack),
		Err: fmt.Errorf("%w: %w: prefix %q is not declared (no xmlns:%s=\"…\" on the root), so <%s:%s> is skipped", ErrInvalid, ErrPrefix, n.Space, n.Space, n.Space, n.Local)}
}

// fatal wraps an error that ends the document with the current position.
func (p *parser) fatal(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	line, col := p.in.pos(p.d.InputOffset())
	return &Error{Line: line, Column: col, Path: path(p.stack), Err: err}
}

// invalid records the first invalid value of an entry, at the element that
// was just closed.
func (p *parser) invalid(format string, args ...any) {
	if p.inv != nil {
		return
	}
	f := p.last
	p.inv = &Error{Line: f.line, Column: f.col, Path: path(append(p.stack, f)),
		Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)}
}

// takeInvalid returns and forgets the current entry's first invalid value.
func (p *parser) takeInvalid() error {
	if e := p.inv; e != nil {
		p.inv = nil
		return e
	}
	return nil
}

// path names the open elements with the protocol's usual prefixes.
func path(stack []frame) string {
	var b strings.Builder
	for i, f := range stack {
		if i > 0 {
			b.WriteByte('/')
		}
		switch f.name.Space {
		case nsSitemap:
		case nsImage:
			b.WriteString("image:")
		case nsVideo:
			b.WriteString("video:")
		case nsNews:
			b.WriteString("news:")
		case nsXHTML:
			b.WriteString("xhtml:")
		default:
			if f.name.Space != "" {
				b.WriteString("{" + f.name.Space + "}")
			}
		}
		b.WriteString(f.name.Local)
	}
	return b.String()
}

// root reads up to the root start tag and returns it.
func (p *parser) root() (xml.StartElement, error) {
	for {
		tok, err := p.token()
		if err == io.EOF {
			return xml.StartElement{}, p.fatal(fmt.Errorf("%w: no root element", ErrRoot))
		}
		if err != nil {
			return xml.StartElement{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t, nil
		case xml.CharData:
			if !isSpace(t) {
				return xml.StartElement{}, p.fatal(fmt.Errorf("%w: text before the root element (nor is it a plain-text sitemap, whose first line is an absolute URL)", ErrRoot))
			}
		}
	}
}

// wantRoot tells whether the root just read is name in the sitemap
// namespace, with an error that says how it is not.
func (p *parser) wantRoot(root xml.Name, name string) error {
	switch {
	case root.Local == name && root.Space == "":
		return p.fatal(fmt.Errorf("%w: <%s> has no namespace; want xmlns=%q", ErrRoot, name, nsSitemap))
	case root.Local == name && root.Space != nsSitemap:
		return p.fatal(fmt.Errorf("%w: <%s> is in the namespace %q; want xmlns=%q", ErrRoot, name, root.Space, nsSitemap))
	case root.Space != nsSitemap || root.Local != name:
		return p.fatal(fmt.Errorf("%w: <%s> in namespace %q, want <%s> in %q", ErrRoot, root.Local, root.Space, name, nsSitemap))
	}
	return nil
}

// nextEntry reads up to the next <name> child of the root and calls entry,
// which reads it whole. It returns false at the end of the document or on
// an error that ends it.
func (p *parser) nextEntry(name string, entry func() error) (bool, error) {
	for {
		tok, err := p.token()
		if err != nil {
			return false, err // io.EOF cannot come before the root's end tag
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsSitemap || t.Name.Local != name {
				if err := p.skip(); err != nil {
					return false, err
				}
				continue
			}
			if p.entries++; p.entries > p.lim.MaxEntries {
				return false, p.fatal(fmt.Errorf("%w (%d)", ErrTooMany, p.lim.MaxEntries))
			}
			p.entryLine, p.entryCol = p.line, p.col
			if err := entry(); err != nil {
				return false, err
			}
			return true, nil
		case xml.EndElement:
			return false, p.end()
		}
	}
}

// end reads what follows the root's end tag: nothing but white space,
// comments and processing instructions.
func (p *parser) end() error {
	for {
		tok, err := p.token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if t, ok := tok.(xml.CharData); !ok || !isSpace(t) {
			return p.fatal(fmt.Errorf("%w: content after the root element", ErrRoot))
		}
	}
}

// children calls child for each child element of the element just opened,
// up to its end tag; child reads the element whole. Text is ignored.
func (p *parser) children(child func(xml.StartElement) error) error {
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := child(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// skip reads the element just opened, and its subtree, up to its end tag.
func (p *parser) skip() error {
	for depth := 1; depth > 0; {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// text reads the text of the element just opened, up to its end tag, into
// p.buf. A child element is skipped and makes the value invalid.
func (p *parser) text() ([]byte, error) {
	p.buf = p.buf[:0]
	child := false
	for {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(p.buf)+len(t) > p.lim.MaxText {
				return nil, p.fatal(ErrTextTooBig)
			}
			p.buf = append(p.buf, t...)
		case xml.StartElement:
			child = true
			if err := p.skip(); err != nil {
				return nil, err
			}
		case xml.EndElement:
			if child {
				p.invalid("element in text")
			}
			return p.buf, nil
		}
	}
}

func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// attr returns the value of an attribute without namespace.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Space == "" && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// hasAttr reports whether an attribute without namespace is present.
func hasAttr(se xml.StartElement, local string) bool {
	for _, a := range se.Attr {
		if a.Name.Space == "" && a.Name.Local == local {
			return true
		}
	}
	return false
}
