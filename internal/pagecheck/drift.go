package pagecheck

import (
	"strconv"
	"time"
)

// Tolerances of Drift: how far apart a lastmod and the page's dates may be
// before it is a finding, each way; a negative one turns that check off.
type Tolerances struct {
	Behind time.Duration // the page newer than the lastmod
	Ahead  time.Duration // the lastmod newer than the page
}

// Drift compares the sitemap's lastmod of a page with the dates the page
// gives (ReadDates), and returns a LastmodBehind or a LastmodAhead finding
// when they disagree by more than tol, or nothing:
//
//   - behind: a date of the page is later than the lastmod, by more than
//     tol.Behind however the two are read (the page changed after the
//     lastmod says it did);
//   - ahead: the lastmod is later than every date of the page, by more
//     than tol.Ahead however they are read (the lastmod claims a change
//     the page does not show).
//
// A page that gives no date, or a URL with no lastmod, is no finding.
// Both cannot hold at once.
func Drift(lastmod Span, d Dates, tol Tolerances) []Finding {
	if lastmod.IsZero() {
		return nil
	}
	var newest, latest Span // the signal with the latest earliest reading, and the latest reading of any
	var newestName, latestName string
	for _, s := range []struct {
		name string
		span Span
	}{{dateHeader, d.LastModified}, {dateMeta, d.Meta}, {dateJSONLD, d.JSONLD}} {
		if s.span.IsZero() {
			continue
		}
		if newest.IsZero() || s.span.From.After(newest.From) {
			newest, newestName = s.span, s.name
		}
		if latest.IsZero() || s.span.To.After(latest.To) {
			latest, latestName = s.span, s.name
		}
	}
	if newest.IsZero() {
		return nil
	}
	if by := newest.From.Sub(lastmod.To); tol.Behind >= 0 && by > tol.Behind {
		return []Finding{{LastmodBehind, driftDetail(lastmod, newestName, newest, by, "newer")}}
	}
	if by := lastmod.From.Sub(latest.To); tol.Ahead >= 0 && by > tol.Ahead {
		return []Finding{{LastmodAhead, driftDetail(lastmod, latestName, latest, by, "older")}}
	}
	return nil
}

// driftDetail says what Drift saw: "lastmod 2025-01-01, page's
// article:modified_time 2025-03-01T12:00:00Z: the page is 59 d newer".
func driftDetail(lastmod Span, name string, page Span, by time.Duration, way string) string {
	return "lastmod " + spanText(lastmod) + ", page's " + name + " " + spanText(page) + ": the page is " + DurationText(by) + " " + way
}

// spanText writes a span as it was written; a span made with no text,
// as its first and last instants.
func spanText(s Span) string {
	switch {
	case s.Text != "":
		return s.Text
	case s.From.Equal(s.To):
		return s.From.UTC().Format(time.RFC3339)
	}
	return s.From.UTC().Format(time.RFC3339) + " to " + s.To.UTC().Format(time.RFC3339)
}

// DurationText says d to a person, in its largest whole unit from two of
// them up: "3 d", "5 h", "40 min", "12 s".
func DurationText(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + " d"
	case d >= 2*time.Hour:
		return strconv.FormatInt(int64(d/time.Hour), 10) + " h"
	case d >= 2*time.Minute:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + " s"
}
