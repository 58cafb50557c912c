// Package parse reads sitemaps back: a <urlset>, with its image, video,
// news and xhtml hreflang extensions, into [urlset.URL] values, and a
// <sitemapindex> into [Sitemap] values.
//
// [Open] reads a document whose kind is not known ahead up to its root,
// then as either, in one pass, and can report every start tag on the way
// (a checker uses it for what the readers do not judge, such as element
// order).
//
// The readers stream: one entry is held at a time, and the input, plain XML
// or gzip (recognised by its first two bytes), is read through limits that
// bound memory whatever it holds. The uncompressed document may have at most
// [urlset.MaxBytes] bytes and [urlset.MaxURLs] entries, one text node,
// comment or tag at most 32 KiB, and elements nest at most 32 deep. A DOCTYPE
// (and so any entity declaration) is refused; only the five predefined
// entities and character references are read.
//
// A plain-text sitemap (one URL a line, the protocol's other format) is
// told from XML by its first bytes, a URL scheme and "://", and read by
// [Document.URLs] too: each line that is not blank is an entry with only
// its Loc, under the same limits (a line is a text node).
//
// A document must be UTF-8, as the protocol says: a UTF-8 byte-order mark
// is read past, and UTF-16, another declared encoding or bytes that are
// not UTF-8 end it with an error wrapping [ErrEncoding]. The XML
// declaration, when there is one, must be the first bytes (after the mark).
//
// Elements are matched by namespace URI, never by prefix. Elements the
// reader does not know, in any namespace, are skipped with their subtree,
// and text between elements is ignored. An xhtml:link without hreflang
// (such as Google's mobile annotation, with media=) is not an hreflang
// alternate, and is skipped too.
//
// # Errors
//
// Every error is an [*Error] with the line, column and element path where it
// was found, so that a checker can print "file:line:col: path: message".
// An error that wraps [ErrInvalid] concerns one entry's value (a bad date, a
// priority that is not a number, a missing loc): the entry is yielded with
// what could be read and the error, and reading goes on with the next entry.
// An empty or white-space <loc> or <image:loc> is such an error (the entry
// has no URL), as are an xhtml:link hreflang alternate without an href
// (it is not kept) and a news:access other than Subscription or
// Registration.
// Any other error (malformed XML, a limit, a wrong root) ends the sequence.
//
// # Values
//
// Locations are returned as written (trimmed of surrounding white space);
// the encoder writes them in canonical percent-encoded form. Times are
// returned in UTC; a lastmod given as a date alone (YYYY, YYYY-MM or
// YYYY-MM-DD) sets URL.LastModDateOnly. Comma-separated lists (news genres,
// keywords, stock tickers) are split on commas and trimmed, so a keyword
// holding a comma comes back as two. A price of type "own" is written as
// "purchase" by the encoder and reads back as "purchase".
package parse

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// Sitemap is one <sitemap> entry of a sitemap index.
type Sitemap struct {
	Loc     string
	LastMod time.Time // zero when the entry has none; in UTC
}

// Limits bound what a reader accepts. The zero value of every field is the
// protocol's limit or a safe default, and a negative value means no limit.
type Limits struct {
	// MaxBytes is the most uncompressed bytes read. Zero means
	// urlset.MaxBytes (52,428,800).
	MaxBytes int64
	// MaxEntries is the most <url> or <sitemap> entries. Zero means
	// urlset.MaxURLs (50,000).
	MaxEntries int
	// MaxText is the most bytes of one text node, comment or tag as written,
	// and of one element's text once decoded. Zero means 32 KiB.
	MaxText int
}

const (
	defaultMaxText = 32 << 10
	maxDepth       = 32 // elements nested in one another
)

func (l Limits) withDefaults() Limits {
	l.MaxBytes = orDefault(l.MaxBytes, urlset.MaxBytes)
	l.MaxEntries = orDefault(l.MaxEntries, urlset.MaxURLs)
	l.MaxText = orDefault(l.MaxText, defaultMaxText)
	return l
}

// orDefault maps zero to def and a negative value to "no limit".
func orDefault[T int | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return T(1)<<(strconv.IntSize-2) - 1 // large, and safe to add to
	}
	return v
}

// URLs returns the entries of the <urlset> that r holds, as plain or gzip
// XML. The sequence reads r as it goes and can be ranged over once. See the
// package documentation for its errors and limits.
func URLs(r io.Reader, lim Limits) iter.Seq2[urlset.URL, error] {
	return func(yield func(urlset.URL, error) bool) {
		d, err := Open(r, lim, nil)
		if err != nil {
			yield(urlset.URL{}, err)
			return
		}
		d.URLs()(yield)
	}
}

// Index returns the entries of the <sitemapindex> that r holds, as plain or
// gzip XML, like [URLs].
func Index(r io.Reader, lim Limits) iter.Seq2[Sitemap, error] {
	return func(yield func(Sitemap, error) bool) {
		d, err := Open(r, lim, nil)
		if err != nil {
			yield(Sitemap{}, err)
			return
		}
		d.Index()(yield)
	}
}

// Document is a document read up to its root element, which tells
// whether it is a <urlset> or a <sitemapindex> (or neither), so that one
// pass over the bytes reads either; or a plain-text sitemap (Text).
type Document struct {
	p    *parser
	root xml.Name
	text bool
}

// Open reads r, plain or gzip XML, up to its root element. Its error, an
// [*Error], concerns what comes before the root: gzip, the encoding,
// malformed XML, or no root (ErrRoot). Read the entries with the
// Document's URLs or Index, once.
//
// onStart, when not nil, is called with every start tag read, from the
// root's on, subtrees the reader skips included: its name, its depth (1
// for the root) and the line and byte column where it starts. It lets a
// caller check in the same pass what the reader does not, such as the
// order of elements. It is called before the entry that holds the tag is
// yielded, and must not keep the reader waiting long.
func Open(r io.Reader, lim Limits, onStart func(name xml.Name, depth, line, col int)) (*Document, error) {
	p, err := newParser(r, lim.withDefaults())
	if err != nil {
		return nil, err
	}
	p.onStart = onStart
	if p.in.text {
		return &Document{p: p, text: true}, nil
	}
	root, err := p.root()
	if err != nil {
		return nil, err
	}
	return &Document{p: p, root: root.Name}, nil
}

// Root is the name of the root element; empty for a plain-text sitemap.
func (d *Document) Root() xml.Name { return d.root }

// Text tells that the document is a plain-text sitemap, one URL a line,
// which only URLs reads (see the package documentation).
func (d *Document) Text() bool { return d.text }

// Pos returns the line and column where the entry last yielded starts:
// its <url> or <sitemap> start tag, or its line in a plain-text sitemap.
func (d *Document) Pos() (line, col int) { return d.p.entryLine, d.p.entryCol }

// URLs returns the entries of the document as a <urlset>, like the
// function [URLs]; a root that is not <urlset> in the sitemap namespace
// is its first and only error (ErrRoot).
func (d *Document) URLs() iter.Seq2[urlset.URL, error] {
	return func(yield func(urlset.URL, error) bool) {
		p := d.p
		if d.text {
			for {
				var u urlset.URL
				ok, err := p.textEntry(&u)
				if !ok && err == nil || !yield(u, err) || !ok {
					return
				}
			}
		}
		if err := p.wantRoot(d.root, "urlset"); err != nil {
			yield(urlset.URL{}, err)
			return
		}
		for {
			var u urlset.URL
			ok, err := p.nextEntry("url", func() error { return p.url(&u) })
			if err == nil {
				err = p.takeInvalid()
			}
			if !ok && err == nil || !yield(u, err) || !ok {
				return
			}
		}
	}
}

// Index returns the entries of the document as a <sitemapindex>, like the
// function [Index].
func (d *Document) Index() iter.Seq2[Sitemap, error] {
	return func(yield func(Sitemap, error) bool) {
		p := d.p
		if d.text {
			yield(Sitemap{}, &Error{Line: 1, Column: 1, Err: fmt.Errorf("%w: %w", ErrRoot, errTextIndex)})
			return
		}
		if err := p.wantRoot(d.root, "sitemapindex"); err != nil {
			yield(Sitemap{}, err)
			return
		}
		for {
			var s Sitemap
			ok, err := p.nextEntry("sitemap", func() error { return p.sitemap(&s) })
			if err == nil {
				err = p.takeInvalid()
			}
			if !ok && err == nil || !yield(s, err) || !ok {
				return
			}
		}
	}
}

// Error is an error found at a place in the document.
type Error struct {
	Line, Column int    // 1-based; of the element's start for a value error
	Path         string // element path such as "urlset/url/video:video/video:duration"
	Err          error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%d:%d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%d:%d: %s: %v", e.Line, e.Column, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Errors that an [Error] wraps, for errors.Is.
var (
	// ErrInvalid is wrapped by errors about one entry's value; reading goes on.
	ErrInvalid = errors.New("sitemap: invalid value")

	ErrTooLarge   = errors.New("sitemap: document exceeds the byte limit")
	ErrTooMany    = errors.New("sitemap: more entries than the limit")
	ErrTextTooBig = errors.New("sitemap: text, comment or tag exceeds the length limit")
	ErrTooDeep    = errors.New("sitemap: elements nested too deep")
	ErrDirective  = errors.New("sitemap: DOCTYPE and other directives are refused")
	ErrRoot       = errors.New("sitemap: unexpected root element")
	// ErrEncoding is wrapped by the error about a document that is not
	// UTF-8: UTF-16, another encoding declared, or bytes that are not UTF-8.
	ErrEncoding = errors.New("sitemap: not UTF-8; sitemaps must be UTF-8")
	// ErrPrefix is wrapped, beside ErrInvalid, by the error about an element
	// whose prefix no xmlns: declares, such as xhtml:link without
	// xmlns:xhtml. Such an element is skipped; the error is given once per
	// prefix and document.
	ErrPrefix = errors.New("sitemap: undeclared namespace prefix")
)
