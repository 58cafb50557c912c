package htmlview

import (
	"bytes"
	"io"
	"time"

	"github.com/freshmap/sitemap/internal/readback"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/klauspost/compress/gzip"
)

// The two views, made from a file's gzip bytes as internal/xmlenc wrote
// them: a <sitemapindex>'s files, a row each, and a <urlset>'s URLs.

// IndexView makes the view of an index whose files' bytes are files
// (file 1 first), in parts of at most MaxPart bytes: a row for each
// <sitemap>, rowOf telling what it shows of the n-th (from 1).
func IndexView(sh *Shell, level int, files [][]byte, rowOf func(n int, sm *Sitemap) *FileRow) ([]*Part, error) {
	parts := NewBuilder(sh, level)
	var row []byte
	n := 1
	for _, gz := range files {
		err := EachSitemap(gz, func(sm *Sitemap) error {
			row = AppendFileRow(row[:0], rowOf(n, sm))
			n++
			return parts.Add(row)
		})
		if err != nil {
			return nil, err
		}
	}
	return parts.Done()
}

// PageView makes the view of gz, a <urlset>, in parts of at most MaxPart
// bytes: a row for each <url>, numbered from 1.
func PageView(sh *Shell, level int, gz []byte) ([]*Part, error) {
	parts := NewBuilder(sh, level)
	var row []byte
	n := 0
	err := readback.EachURL(gz, func(elem []byte) error {
		var u URL
		if err := ReadURL(elem, &u); err != nil {
			return err
		}
		n++
		row = AppendURLRow(row[:0], n, &u)
		return parts.Add(row)
	})
	if err != nil {
		return nil, err
	}
	return parts.Done()
}

// IndexIntro is the line under an index view's heading: the index file
// it shows (named name, linked), and its Last-Modified if not zero.
func IndexIntro(name string, lastMod time.Time) []byte {
	intro := []byte(`The files that <a href="`)
	intro = xmlenc.AppendAttr(intro, name)
	intro = append(intro, `">`...)
	intro = xmlenc.AppendEscaped(intro, name)
	intro = append(intro, `</a> lists, as search engines read them`...)
	if !lastMod.IsZero() {
		intro = AppendTime(append(intro, ", last modified "...), lastMod.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return append(intro, `. A URL count shows once this server has built the file.`...)
}

// PageIntro is the line under a page view's heading: the file it shows
// (named file, linked), the lastmod the index lists it with if not zero,
// and a link to the index's view at indexView unless that is "" (a
// one-file sitemap, which is the index).
func PageIntro(file string, listed time.Time, indexView string) []byte {
	intro := []byte(`The URLs that <a href="`)
	intro = xmlenc.AppendAttr(intro, file)
	intro = append(intro, `">`...)
	intro = xmlenc.AppendEscaped(intro, file)
	intro = append(intro, `</a> lists, as search engines read them`...)
	if !listed.IsZero() {
		intro = AppendTime(append(intro, ", listed in the index with lastmod "...), listed.UTC().Format(time.RFC3339))
	}
	if indexView != "" {
		intro = append(intro, `. <a href="`...)
		intro = xmlenc.AppendAttr(intro, indexView)
		intro = append(intro, `">All sitemap files</a>`...)
	}
	return append(intro, '.')
}

// IsURLSet reports whether gz, an index's copy, is a one-file sitemap: a
// <urlset> in its first 512 bytes.
func IsURLSet(gz []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return false
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(zr, head)
	return bytes.Contains(head[:n], []byte("<urlset"))
}
