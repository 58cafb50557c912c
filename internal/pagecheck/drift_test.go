package pagecheck

import (
	"strings"
	"testing"
	"time"
)

// TestDrift: a page newer than its lastmod is behind, a lastmod later than
// the page is ahead, each past its tolerance only, and a date alone is
// read as the whole of its day.
func TestDrift(t *testing.T) {
	day := func(s string) Span { v, _ := time.Parse(time.DateOnly, s); return Day(v) }
	at := func(s string) Span { v, _ := time.Parse(time.RFC3339, s); return Instant(v) }
	page := func(s string) Dates { return Dates{Meta: at(s)} }
	tol := Tolerances{Behind: time.Hour, Ahead: time.Hour}
	for _, c := range []struct {
		name    string
		lastmod Span
		d       Dates
		tol     Tolerances
		want    string
	}{
		{"same", at("2025-03-01T12:00:00Z"), page("2025-03-01T12:00:00Z"), tol, ""},
		{"within tolerance", at("2025-03-01T12:00:00Z"), page("2025-03-01T12:59:00Z"), tol, ""},
		{"page newer", at("2025-03-01T12:00:00Z"), page("2025-03-03T12:00:00Z"), tol, LastmodBehind},
		{"lastmod newer", at("2025-03-05T12:00:00Z"), page("2025-03-01T12:00:00Z"), tol, LastmodAhead},
		{"behind off", at("2025-03-01T12:00:00Z"), page("2025-03-03T12:00:00Z"), Tolerances{Behind: -1, Ahead: time.Hour}, ""},
		{"ahead off", at("2025-03-05T12:00:00Z"), page("2025-03-01T12:00:00Z"), Tolerances{Behind: time.Hour, Ahead: -1}, ""},
		{"date-only lastmod, same day", day("2025-03-01"), page("2025-03-01T23:30:00Z"), tol, ""},
		{"date-only lastmod, next day", day("2025-03-01"), page("2025-03-02T02:00:00Z"), tol, LastmodBehind},
		{"no lastmod", Span{}, page("2025-03-03T12:00:00Z"), tol, ""},
		{"no page date", at("2025-03-01T12:00:00Z"), Dates{}, tol, ""},
		// One signal newer is enough to be behind; ahead needs every one older.
		{"one header newer", at("2025-03-01T12:00:00Z"), Dates{Meta: at("2025-03-01T12:00:00Z"), LastModified: at("2025-03-09T00:00:00Z")}, tol, LastmodBehind},
		{"one signal agrees", at("2025-03-05T12:00:00Z"), Dates{Meta: at("2025-03-01T12:00:00Z"), JSONLD: at("2025-03-05T12:00:00Z")}, tol, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kinds []string
			for _, f := range Drift(c.lastmod, c.d, c.tol) {
				kinds = append(kinds, f.Kind)
				if !strings.HasPrefix(f.Detail, "lastmod ") || !strings.Contains(f.Detail, "page's") {
					t.Errorf("detail %q", f.Detail)
				}
			}
			if got := strings.Join(kinds, ","); got != c.want {
				t.Errorf("kinds %q, want %q", got, c.want)
			}
		})
	}
	f := Drift(at("2025-03-01T12:00:00Z"), page("2025-03-04T12:00:00Z"), tol)
	if want := "lastmod 2025-03-01T12:00:00Z, page's article:modified_time 2025-03-04T12:00:00Z: the page is 3 d newer"; len(f) != 1 || f[0].Detail != want {
		t.Errorf("detail %+v, want %q", f, want)
	}
}
