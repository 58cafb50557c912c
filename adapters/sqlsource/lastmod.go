package sqlsource

import (
	"fmt"
	"strings"
	"time"
)

// timeScanner scans a lastmod value, whatever form the driver delivers it
// in, into a UTC time truncated to the second:
//
//   - time.Time (PostgreSQL timestamp, timestamptz and date; MySQL DATETIME,
//     TIMESTAMP and DATE with parseTime=true; SQLite columns declared DATE,
//     DATETIME or TIMESTAMP, parsed by the driver): converted to UTC.
//   - text ([]byte or string: SQLite TEXT, MySQL without parseTime, the
//     result of max() in SQLite): one of the SQLite date formats
//     YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS[.fff…]] (with a space or a T), with an
//     optional zone Z, ±HH:MM, ±HHMM or ±HH; or Go's Time.String form, which
//     some SQLite drivers write. Text without a zone is UTC. MySQL's zero date
//     0000-00-00 means unknown.
//   - int64: Unix time in seconds (SQLite INTEGER, such as unixepoch()).
//   - NULL: unknown, the zero time.
//
// Anything else (a REAL, which SQLite uses for Julian days, or text in
// another format) is an error, which fails the page rather than writing a
// wrong date.
type timeScanner struct {
	t      time.Time
	layout int // index into textLayouts of the last layout that matched
}

// textLayouts are tried in order, starting with the last one that matched.
// A layout with seconds also accepts a fraction of a second.
var textLayouts = [...]string{
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05-0700",
	"2006-01-02T15:04:05-0700",
	"2006-01-02 15:04:05-07",
	"2006-01-02T15:04:05-07",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02 15:04Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01-02 15:04:05 -0700 MST", // Go's Time.String, without the monotonic part
}

// Scan implements sql.Scanner.
func (s *timeScanner) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		s.t = time.Time{}
	case time.Time:
		s.t = utcSecond(v)
	case int64:
		s.t = time.Unix(v, 0).UTC()
	case []byte:
		if t, ok := parseISO(string(v)); ok { // without allocating
			s.t = t
			return nil
		}
		return s.scanText(string(v))
	case string:
		return s.scanText(v)
	default:
		return fmt.Errorf("sqlsource: lastmod: unsupported value of type %T; want a timestamp, text such as 2006-01-02 15:04:05, or Unix seconds", src)
	}
	return nil
}

func (s *timeScanner) scanText(text string) error {
	if err := s.parse(text); err != nil {
		return fmt.Errorf("sqlsource: lastmod: %w", err)
	}
	return nil
}

// parse reads text in one of the forms Scan accepts.
func (s *timeScanner) parse(text string) error {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasPrefix(text, "0000-00-00") {
		s.t = time.Time{}
		return nil
	}
	if t, ok := parseISO(text); ok {
		s.t = t
		return nil
	}
	if i := strings.Index(text, " m="); i > 0 {
		text = text[:i] // the monotonic clock reading of Time.String
	}
	for i := range textLayouts {
		j := (s.layout + i) % len(textLayouts)
		if t, err := time.Parse(textLayouts[j], text); err == nil {
			s.t, s.layout = utcSecond(t), j
			return nil
		}
	}
	return fmt.Errorf("cannot parse %q as a time; want a format such as 2006-01-02 15:04:05", text)
}

// utcSecond returns t in UTC, truncated to the second: the precision of a
// sitemap, and the one all databases agree on.
func utcSecond(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Second)
}

// parseISO is a fast path for the most common forms, UTC
// "YYYY-MM-DD HH:MM:SS" (or with a T, and optionally a final Z) and
// "YYYY-MM-DD", which time.Parse would take several times longer to read.
// It reports false for anything else, including invalid dates, and then
// time.Parse decides.
func parseISO(s string) (time.Time, bool) {
	switch {
	case len(s) == 20 && s[19] == 'Z':
		s = s[:19]
	case len(s) == 10:
		s += " 00:00:00"
	}
	if len(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' && s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	var v [6]int
	for i, at := range [6]int{0, 5, 8, 11, 14, 17} {
		n := 2
		if i == 0 {
			n = 4
		}
		for _, c := range []byte(s[at : at+n]) {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
			v[i] = v[i]*10 + int(c-'0')
		}
	}
	year, month, day := v[0], time.Month(v[1]), v[2]
	if month < 1 || month > 12 || day < 1 || v[3] > 23 || v[4] > 59 || v[5] > 59 ||
		day > 28 && day > time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return time.Time{}, false
	}
	return time.Date(year, month, day, v[3], v[4], v[5], 0, time.UTC), true
}
