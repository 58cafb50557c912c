package demo

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Doc is one sitemap document as a crawler received it.
type Doc struct {
	URL   string
	Index bool   // the sitemap index rather than a <urlset>
	XML   []byte // uncompressed; valid only during the visit call
}

// CrawlReport sums up a crawl.
type CrawlReport struct {
	Took      time.Duration
	Files     int   // sitemap files, not counting the index
	URLs      int   // <url> entries in them
	WireBytes int64 // response bytes received, compressed
	XMLBytes  int64 // the same documents uncompressed
}

// Crawl fetches base's robots.txt, checks that it names the sitemap index,
// then fetches the index and every file it lists, once each and in order,
// as a search engine would. Every response must be 200 and decompress;
// visit, if not nil, sees each document. Two buffers are reused for every
// file, so that the crawler's own memory stays small next to the server's.
func Crawl(ctx context.Context, client *http.Client, base string, visit func(Doc) error) (CrawlReport, error) {
	start := time.Now()
	var rep CrawlReport
	var f fetcher
	fetch := f.fetch
	base = strings.TrimSuffix(base, "/")
	robots, n, err := fetch(ctx, client, base+"/robots.txt")
	if err != nil {
		return rep, err
	}
	rep.WireBytes += n
	index := base + "/sitemap_index.xml"
	if !hasLine(robots, "Sitemap: "+index) {
		return rep, fmt.Errorf("crawl: robots.txt does not name %s:\n%s", index, robots)
	}
	doc, n, err := fetch(ctx, client, index)
	if err != nil {
		return rep, err
	}
	rep.WireBytes += n
	rep.XMLBytes += int64(len(doc))
	var idx struct {
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(doc, &idx); err != nil {
		return rep, fmt.Errorf("crawl: index: %w", err)
	}
	if visit != nil {
		if err := visit(Doc{URL: index, Index: true, XML: doc}); err != nil {
			return rep, err
		}
	}
	for _, s := range idx.Sitemaps {
		doc, n, err := fetch(ctx, client, s.Loc)
		if err != nil {
			return rep, err
		}
		rep.Files++
		rep.URLs += bytes.Count(doc, []byte("<url>"))
		rep.WireBytes += n
		rep.XMLBytes += int64(len(doc))
		if visit != nil {
			if err := visit(Doc{URL: s.Loc, XML: doc}); err != nil {
				return rep, err
			}
		}
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// fetcher fetches documents into buffers it reuses.
type fetcher struct {
	raw, body bytes.Buffer
	zr        *gzip.Reader
}

// fetch GETs url, asking for gzip, and returns the decompressed body, valid
// until the next call, and the number of bytes received. A .gz file is a
// gzip file whatever its Content-Encoding.
func (f *fetcher) fetch(ctx context.Context, client *http.Client, url string) ([]byte, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept-Encoding", "gzip") // so that the transport leaves the body as sent
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("crawl: %w", err)
	}
	defer resp.Body.Close()
	f.raw.Reset()
	if _, err := f.raw.ReadFrom(resp.Body); err != nil {
		return nil, 0, fmt.Errorf("crawl: %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("crawl: %s: %s", url, resp.Status)
	}
	n := int64(f.raw.Len())
	if resp.Header.Get("Content-Encoding") != "gzip" && !strings.HasSuffix(url, ".gz") {
		return f.raw.Bytes(), n, nil
	}
	if f.zr == nil {
		f.zr = new(gzip.Reader)
	}
	if err := f.zr.Reset(&f.raw); err != nil {
		return nil, 0, fmt.Errorf("crawl: %s: %w", url, err)
	}
	f.body.Reset()
	if _, err := f.body.ReadFrom(f.zr); err != nil {
		return nil, 0, fmt.Errorf("crawl: %s: %w", url, err)
	}
	return f.body.Bytes(), n, nil
}

func hasLine(text []byte, line string) bool {
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == line {
			return true
		}
	}
	return false
}
