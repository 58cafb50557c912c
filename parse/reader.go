package parse

import (
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// input is the byte stream the XML decoder reads: the document, inflated
// when it starts with the gzip magic bytes, cut off past the byte limit, and
// refused when a run of bytes between two '<' (one text node, comment or
// tag) grows past the text limit. The decoder buffers a whole token before it
// returns it, so the run limit is what bounds its memory. input is an
// io.ByteReader, so the decoder adds no buffer of its own and stops at the
// byte that broke a limit.
type input struct {
	src  io.Reader
	buf  []byte
	r, w int
	n    int64 // bytes handed to the decoder
	max  int64
	run  int // bytes since the last '<'
	// lines delivered so far, and where the last two started, for pos
	lines, lineStart, prevStart int64
	maxRun                      int
	err                         error // sticky
	// text tells a plain-text sitemap (one URL a line): a line, not a
	// run between two '<', is what the text limit bounds.
	text bool
}

// newInput detects gzip by its magic bytes (1f 8b) and returns the limited,
// uncompressed stream, past a UTF-8 byte-order mark. A document that starts
// as UTF-16 does (a UTF-16 mark, or "<" or "<?" as 16-bit units) is refused.
func newInput(r io.Reader, lim Limits) (*input, error) {
	src, head, err := peek(r, 2)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(head, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(src)
		if err != nil {
			return nil, err
		}
		src = gz
	}
	src, head, err = peek(src, 4)
	if err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")):
		io.ReadFull(src, head[:3]) // the mark: read past
	case bytes.HasPrefix(head, []byte("\xfe\xff")), bytes.HasPrefix(head, []byte("\xff\xfe")),
		bytes.HasPrefix(head, []byte("\x00<")), bytes.HasPrefix(head, []byte("<\x00")):
		return nil, fmt.Errorf("%w: the document is UTF-16", ErrEncoding)
	}
	src, head, err = peek(src, textPeek)
	if err != nil {
		return nil, err
	}
	return &input{src: src, buf: make([]byte, 16<<10), max: lim.MaxBytes, maxRun: lim.MaxText, text: isText(head)}, nil
}

// textPeek is how many bytes are looked at to tell a plain-text sitemap.
const textPeek = 512

// isText tells a plain-text sitemap from XML by its first bytes: past any
// white space, a URL scheme and "://" ("https://example.com/a"), where XML
// has '<'. Anything else is read as XML, whose errors say what is wrong.
func isText(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	i := 0
	for i < len(head) && (isAlpha(head[i]) || i > 0 && (head[i] >= '0' && head[i] <= '9' || head[i] == '+' || head[i] == '-' || head[i] == '.')) {
		i++
	}
	return i > 0 && bytes.HasPrefix(head[i:], []byte("://"))
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// peek returns a reader of all of r and its first n bytes (fewer at the end).
func peek(r io.Reader, n int) (io.Reader, []byte, error) {
	head := make([]byte, n)
	m, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, nil, err
	}
	return io.MultiReader(bytes.NewReader(head[:m]), r), head[:m], nil
}

// ReadByte hands the decoder its next byte, checking the limits.
func (in *input) ReadByte() (byte, error) {
	if in.r == in.w {
		if err := in.fill(); err != nil {
			return 0, err
		}
	}
	c := in.buf[in.r]
	in.r++
	in.n++
	in.run++
	switch {
	case c == '<':
		in.run = 0
	case c == '\n':
		in.lines++
		in.prevStart, in.lineStart = in.lineStart, in.n
		if in.text {
			in.run = 0
		}
	case in.run > in.maxRun:
		in.err = ErrTextTooBig
		return 0, in.err
	}
	if in.n > in.max {
		in.err = ErrTooLarge
		return 0, in.err
	}
	return c, nil
}

// Read is there for io.Reader; the decoder only calls ReadByte.
func (in *input) Read(p []byte) (int, error) {
	for i := range p {
		c, err := in.ReadByte()
		if err != nil {
			if i > 0 {
				return i, nil
			}
			return 0, err
		}
		p[i] = c
	}
	return len(p), nil
}

func (in *input) fill() error {
	if in.err != nil {
		return in.err
	}
	for {
		n, err := in.src.Read(in.buf)
		in.r, in.w = 0, n
		if n > 0 {
			return nil
		}
		if err != nil {
			in.err = err
			return err
		}
	}
}

// pos returns the 1-based line and byte column of an offset that the
// decoder reports. The decoder reads at most one byte ahead, so the offset
// is on the last line delivered or the one before.
func (in *input) pos(off int64) (line, col int) {
	if off >= in.lineStart {
		return int(in.lines) + 1, int(off-in.lineStart) + 1
	}
	return int(in.lines), int(off-in.prevStart) + 1
}
