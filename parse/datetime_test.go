package parse

import (
	"testing"
	"time"
)

func TestParseW3C(t *testing.T) {
	utc := func(y, mo, d, h, mi, s, ns int) time.Time {
		return time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in       string
		want     time.Time
		dateOnly bool
	}{
		{"1997", utc(1997, 1, 1, 0, 0, 0, 0), true},
		{"1997-07", utc(1997, 7, 1, 0, 0, 0, 0), true},
		{"1997-07-16", utc(1997, 7, 16, 0, 0, 0, 0), true},
		{"2024-02-29", utc(2024, 2, 29, 0, 0, 0, 0), true},
		{"1997-07-16T19:20+01:00", utc(1997, 7, 16, 18, 20, 0, 0), false},
		{"1997-07-16T19:20:30+01:00", utc(1997, 7, 16, 18, 20, 30, 0), false},
		{"1997-07-16T19:20:30.45+01:00", utc(1997, 7, 16, 18, 20, 30, 450_000_000), false},
		{"1997-07-16T19:20:30.123456789123Z", utc(1997, 7, 16, 19, 20, 30, 123456789), false},
		{"2004-12-23T18:00:15+00:00", utc(2004, 12, 23, 18, 0, 15, 0), false},
		{"2005-01-01T00:00:00-05:30", utc(2005, 1, 1, 5, 30, 0, 0), false},
		{"2024-06-01T08:30:15Z", utc(2024, 6, 1, 8, 30, 15, 0), false},
		{"0001-01-01T00:00:00Z", utc(1, 1, 1, 0, 0, 0, 0), false},
	} {
		got, dateOnly, err := parseW3C(tc.in)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC || dateOnly != tc.dateOnly {
			t.Errorf("parseW3C(%q) = %v, %v, %v; want %v, %v", tc.in, got, dateOnly, err, tc.want, tc.dateOnly)
		}
	}
	for _, in := range []string{
		"", "97", "199", "19970", "1997-7", "1997-13", "1997-00", "1997-07-1", "1997-07-32", "2023-02-29",
		"1997-07-16T", "1997-07-16 19:20Z", "1997-07-16T19:20", "1997-07-16T24:00Z", "1997-07-16T19:60Z",
		"1997-07-16T19:20:61Z", "1997-07-16T19:20:30.Z", "1997-07-16T19:20:30+0100", "1997-07-16T19:20:30+24:00",
		"1997-07-16T19:20:30z", "1997-07-16T19:20:30Z ", "+1997", "1997-07-16T1:20Z", "１９９７",
	} {
		if got, _, err := parseW3C(in); err == nil {
			t.Errorf("parseW3C(%q) = %v, want an error", in, got)
		}
	}
}
