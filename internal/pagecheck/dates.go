package pagecheck

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// Span is a time known to lie between From and To, both included: a
// timestamp with its zone is one instant (From equals To); a date alone,
// or a time written with no zone, covers every instant it may mean.
type Span struct {
	From, To time.Time
	Text     string // as it was written, for a person
}

// IsZero tells whether s is no time at all (a date the page does not give).
func (s Span) IsZero() bool { return s.From.IsZero() }

// Instant is the span of the one instant t.
func Instant(t time.Time) Span { return Span{t, t, t.UTC().Format(time.RFC3339)} }

// Day is the span of the UTC day of t, as a sitemap's date-only lastmod
// (which this library writes in UTC) means it.
func Day(t time.Time) Span {
	d := t.UTC().Truncate(24 * time.Hour)
	return Span{d, d.Add(24*time.Hour - time.Second), d.Format(time.DateOnly)}
}

// Zones a time with no zone may be in: UTC-12:00 to UTC+14:00.
const (
	zoneWest = 12 * time.Hour
	zoneEast = 14 * time.Hour
)

// ParseDate reads an ISO 8601 date or time as pages write them (W3C
// Datetime, RFC 3339, with or without seconds, fractions, the zone's colon
// or the 'T'): "2025-03-01T12:00:00+01:00", "2025-03-01 12:00",
// "2025-03-01". A time with no zone, and a date alone, may be in any zone
// from UTC-12:00 to UTC+14:00, and span what that allows. It reports false
// for anything else.
func ParseDate(s string) (Span, bool) {
	s = strings.TrimSpace(s)
	text := s
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return Span{t.UTC(), t.UTC(), text}, true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil { // a local time, zone unknown
			return Span{t.Add(-zoneEast), t.Add(zoneWest), text}, true
		}
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return Span{t.Add(-zoneEast), t.Add(24*time.Hour - time.Second + zoneWest), text}, true
	}
	return Span{}, false
}

// Dates are the times a page says it last changed, each zero when it does
// not say (or says something that is no date).
type Dates struct {
	LastModified Span // the Last-Modified header
	Meta         Span // <meta property="article:modified_time" content="…">
	JSONLD       Span // the latest dateModified of its JSON-LD scripts
}

// The names of the dates, as findings give them.
const (
	dateHeader = "Last-Modified"
	dateMeta   = "article:modified_time"
	dateJSONLD = "JSON-LD dateModified"
)

// ReadDates reads the dates of a 200 response: its header h and the first
// bytes of its body (at most HeadBytes are read). A body that is not HTML
// gives only the header's date.
func ReadDates(h http.Header, body []byte) Dates {
	var d Dates
	if v := h.Get("Last-Modified"); v != "" {
		if t, err := http.ParseTime(v); err == nil {
			d.LastModified = Span{t.UTC(), t.UTC(), v}
		}
	}
	if isHTML(h.Get("Content-Type"), body) {
		d.Meta, d.JSONLD = readDates(body[:min(len(body), HeadBytes)])
	}
	return d
}

// readDates reads the first <meta property="article:modified_time"> (or
// name="article:modified_time") and the latest dateModified of every
// <script type="application/ld+json"> of an HTML document, in its head or
// its body.
func readDates(body []byte) (meta, jsonld Span) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return meta, jsonld
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "meta":
				a := attrs(z, hasAttr)
				if meta.IsZero() && (strings.EqualFold(a["property"], dateMeta) || strings.EqualFold(a["name"], dateMeta)) {
					meta, _ = ParseDate(a["content"])
				}
			case "script":
				a := attrs(z, hasAttr)
				typ, _, _ := strings.Cut(a["type"], ";")
				if !strings.EqualFold(strings.TrimSpace(typ), "application/ld+json") {
					continue
				}
				if z.Next() != html.TextToken {
					continue
				}
				if s := jsonLDModified(z.Text()); s.From.After(jsonld.From) {
					jsonld = s
				}
			}
		}
	}
}

// jsonLDModified returns the latest dateModified anywhere in a JSON-LD
// script (an object, an array, a @graph), or zero if none; a script that
// is not JSON gives none.
func jsonLDModified(script []byte) Span {
	var v any
	if json.Unmarshal(script, &v) != nil {
		return Span{}
	}
	var latest Span
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 32 { // json.Unmarshal bounds it too; a page has no reason to nest this deep
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "dateModified" {
					if d, ok := ParseDate(s); ok && d.From.After(latest.From) {
						latest = d
					}
					continue
				}
				walk(x, depth+1)
			}
		case []any:
			for _, x := range v {
				walk(x, depth+1)
			}
		}
	}
	walk(v, 0)
	return latest
}
