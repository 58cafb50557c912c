// Package pagecheck checks what a search engine would make of one page
// listed in a sitemap, from its HTTP response: a 200 with no redirect, no
// noindex (X-Robots-Tag or <meta name="robots">), and a canonical link, if
// any, that names the listed URL. It reads the status, the headers and the
// start of the body only, and does no I/O.
package pagecheck

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// HeadBytes is how much of a body Check reads at most: the <head> of any
// sane page fits.
const HeadBytes = 256 << 10

// The kinds of finding.
const (
	Status    = "status"    // the page answered neither 200 nor a redirect
	Redirect  = "redirect"  // the page redirects (3xx)
	Noindex   = "noindex"   // X-Robots-Tag or <meta name="robots"> says noindex (or none)
	Canonical = "canonical" // the page's canonical link names another URL
	Robots    = "robots"    // robots.txt disallows the URL for Googlebot
	Error     = "error"     // the page could not be fetched at all

	LastmodBehind = "lastmod_behind" // the page says it changed after its sitemap lastmod (Drift)
	LastmodAhead  = "lastmod_ahead"  // the sitemap lastmod is after every date the page gives (Drift)
)

// Kinds are the kinds of finding, in the order Check and a robots.txt
// check find them, then Drift's.
var Kinds = []string{Status, Redirect, Noindex, Canonical, Robots, Error, LastmodBehind, LastmodAhead}

// Finding is one thing wrong with a listed URL.
type Finding struct {
	Kind   string // one of the kinds above
	Detail string // what was seen: "404", the Location, the other canonical
}

// Check returns what is wrong with the response to a GET of loc: status,
// its headers h, and the first bytes of its body (at most HeadBytes are
// read). A redirect or an error status ends the check: its body says
// nothing of the page. A page with no canonical link is fine.
func Check(loc string, status int, h http.Header, body []byte) []Finding {
	switch {
	case status >= 300 && status < 400:
		return []Finding{{Redirect, strconv.Itoa(status) + " " + h.Get("Location")}}
	case status != http.StatusOK:
		return []Finding{{Status, strconv.Itoa(status)}}
	}
	var out []Finding
	noindex := ""
	for _, v := range h.Values("X-Robots-Tag") {
		if robotsNoindex(v, true) {
			noindex = "X-Robots-Tag: " + v
		}
	}
	canon := canonicalOf(h.Values("Link"))
	if isHTML(h.Get("Content-Type"), body) {
		metaNoindex, linkCanon := readHead(body[:min(len(body), HeadBytes)])
		if noindex == "" && metaNoindex != "" {
			noindex = metaNoindex
		}
		canon = cmpOr(canon, linkCanon)
	}
	if noindex != "" {
		out = append(out, Finding{Noindex, noindex})
	}
	if canon != "" {
		if abs := resolve(loc, canon); abs != loc {
			out = append(out, Finding{Canonical, abs})
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isHTML tells whether a body is HTML: by its Content-Type, or sniffed
// when there is none.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/html") ||
		strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/xhtml+xml")
}

// robotsNoindex tells whether a robots directive list ("noindex, nofollow",
// "googlebot: none") keeps Googlebot from indexing. A list that names
// another user agent first does not; header tells an X-Robots-Tag value,
// where that prefix may appear.
func robotsNoindex(v string, header bool) bool {
	if header {
		if agent, rest, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(agent, ",") {
			a := strings.ToLower(strings.TrimSpace(agent))
			if a != "googlebot" && a != "*" && !isDirective(a) {
				return false
			}
			if !isDirective(a) {
				v = rest
			}
		}
	}
	for _, d := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "noindex", "none":
			return true
		}
	}
	return false
}

// isDirective tells whether a word before a colon is a directive with a
// value ("max-snippet: 20", "unavailable_after: …") rather than an agent.
func isDirective(a string) bool {
	switch a {
	case "max-snippet", "max-image-preview", "max-video-preview", "unavailable_after", "indexifembedded":
		return true
	}
	return false
}

// readHead reads the <head> of an HTML document: a <meta name="robots">
// or name="googlebot" that says noindex, as a tag, and the href
// of the first <link rel="canonical">. It stops at <body> or at the first
// element of the body.
func readHead(body []byte) (noindex, canonical string) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body", "main", "article", "div", "p", "h1":
				return
			case "meta":
				a := attrs(z, hasAttr)
				n := strings.ToLower(a["name"])
				if (n == "robots" || n == "googlebot") && noindex == "" && robotsNoindex(a["content"], false) {
					noindex = `<meta name="` + n + `" content="` + a["content"] + `">`
				}
			case "link":
				a := attrs(z, hasAttr)
				if canonical == "" && hasToken(a["rel"], "canonical") {
					canonical = strings.TrimSpace(a["href"])
				}
			}
		}
	}
}

func attrs(z *html.Tokenizer, more bool) map[string]string {
	a := make(map[string]string, 4)
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		a[string(k)] = string(v)
	}
	return a
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// canonicalOf returns the target of the first Link header value with
// rel="canonical" (RFC 8288: <target>; rel="canonical"), or "".
func canonicalOf(links []string) string {
	for _, v := range links {
		for len(v) > 0 {
			v = strings.TrimLeft(v, " \t,")
			if !strings.HasPrefix(v, "<") {
				break
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				break
			}
			target, params := v[1:end], v[end+1:]
			next := strings.Index(params, ",<")
			if i := strings.Index(params, ", <"); i >= 0 && (next < 0 || i < next) {
				next = i
			}
			if next >= 0 {
				params, v = params[:next], params[next+1:]
			} else {
				v = ""
			}
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(p, "=")
				if strings.EqualFold(strings.TrimSpace(k), "rel") && hasToken(strings.Trim(strings.TrimSpace(val), `"`), "canonical") {
					return target
				}
			}
		}
	}
	return ""
}

// resolve makes ref absolute against loc; on a parse error it is returned
// as it is.
func resolve(loc, ref string) string {
	base, err := url.Parse(loc)
	if err != nil {
		return ref
	}
	u, err := base.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}
