package pagecheck

import (
	"net/http"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for in, want := range map[string]Span{
		"2025-03-01T12:00:00Z":       Instant(at("2025-03-01T12:00:00Z")),
		"2025-03-01T12:00:00+01:00":  Instant(at("2025-03-01T11:00:00Z")),
		"2025-03-01T12:00:00.250Z":   Instant(at("2025-03-01T12:00:00.25Z")),
		"2025-03-01T12:00+02:00":     Instant(at("2025-03-01T10:00:00Z")),
		"2025-03-01T12:00:00-0500":   Instant(at("2025-03-01T17:00:00Z")),
		" 2025-03-01 12:00:00Z ":     Instant(at("2025-03-01T12:00:00Z")),
		"2025-03-01T12:00:00":        {From: at("2025-02-28T22:00:00Z"), To: at("2025-03-02T00:00:00Z")},
		"2025-03-01":                 {From: at("2025-02-28T10:00:00Z"), To: at("2025-03-02T11:59:59Z")},
		"":                           {},
		"yesterday":                  {},
		"2025-13-01":                 {},
		"2025-03-01T25:00:00Z":       {},
		"Sat, 01 Mar 2025 12:00 GMT": {},
	} {
		got, ok := ParseDate(in)
		if ok != !want.IsZero() || !got.From.Equal(want.From) || !got.To.Equal(want.To) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
}

func TestReadDates(t *testing.T) {
	h := http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Last-Modified": {"Sat, 01 Mar 2025 12:00:00 GMT"}}
	body := `<!doctype html><html><head><meta property="article:modified_time" content="2025-02-01T00:00:00Z">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage","dateModified":"2025-01-05T00:00:00Z"},
{"@type":"Article","dateModified":"2025-01-09T00:00:00Z","author":{"dateModified":"2024-01-01"}}]}</script></head>
<body><p>x</p><script type="Application/LD+JSON; charset=utf-8">[{"dateModified":"2025-01-07T00:00:00Z"}]</script>
<script type="application/ld+json">{not json</script><meta name="article:modified_time" content="2020-01-01"></body></html>`
	d := ReadDates(h, []byte(body))
	for name, c := range map[string]struct {
		got  Span
		want string
	}{
		"Last-Modified": {d.LastModified, "2025-03-01T12:00:00Z"},
		"meta":          {d.Meta, "2025-02-01T00:00:00Z"},
		"JSON-LD":       {d.JSONLD, "2025-01-09T00:00:00Z"}, // the latest, wherever it is
	} {
		if got := c.got.From.Format(time.RFC3339); got != c.want || !c.got.From.Equal(c.got.To) {
			t.Errorf("%s: %v, want %s", name, c.got, c.want)
		}
	}
	if d := ReadDates(http.Header{"Content-Type": {"application/pdf"}}, []byte(body)); !d.Meta.IsZero() || !d.JSONLD.IsZero() || !d.LastModified.IsZero() {
		t.Errorf("a PDF has dates %+v", d)
	}
	if d := ReadDates(http.Header{"Last-Modified": {"garbage"}}, nil); !d.LastModified.IsZero() {
		t.Errorf("a bad Last-Modified read as %v", d.LastModified)
	}
}

// FuzzReadDates: any body and header, however broken, give dates without
// a panic, and Drift over them either nothing or one finding.
func FuzzReadDates(f *testing.F) {
	f.Add("Sat, 01 Mar 2025 12:00:00 GMT", `<meta property="article:modified_time" content="2025-03-01">`)
	f.Add("", `<script type="application/ld+json">{"@graph":[{"dateModified":"2025-03-01T12:00"}]}</script>`)
	f.Add("x", `<script type="application/ld+json">[[[[[[{"dateModified":1}]]]]]]</script>`)
	f.Fuzz(func(t *testing.T, lastModified, body string) {
		h := http.Header{"Content-Type": {"text/html"}, "Last-Modified": {lastModified}}
		d := ReadDates(h, []byte(body))
		for _, s := range []Span{d.LastModified, d.Meta, d.JSONLD} {
			if s.To.Before(s.From) {
				t.Fatalf("span %+v ends before it starts", s)
			}
		}
		lm := Instant(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))
		if got := Drift(lm, d, Tolerances{Behind: time.Hour, Ahead: time.Hour}); len(got) > 1 {
			t.Fatalf("Drift = %v", got)
		}
	})
}
