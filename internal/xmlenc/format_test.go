package xmlenc

import (
	"bytes"
	"math"
	"testing"
	"time"
)

func TestAppendW3CTime(t *testing.T) {
	ist := time.FixedZone("IST", 5*60*60+30*60)
	for _, tc := range []struct {
		t        time.Time
		dateOnly bool
		want     string
	}{
		{time.Date(2004, 12, 23, 18, 0, 15, 0, time.UTC), false, "2004-12-23T18:00:15Z"},
		{time.Date(2004, 12, 23, 18, 0, 15, 0, ist), false, "2004-12-23T12:30:15Z"},
		{time.Date(2004, 12, 24, 3, 0, 0, 0, ist), true, "2004-12-23"}, // the UTC date
		{time.Date(2024, 2, 29, 23, 59, 59, 999_999_999, time.UTC), false, "2024-02-29T23:59:59Z"},
		{time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), false, "0001-01-02T00:00:00Z"},
		{time.Date(999, 5, 6, 7, 8, 9, 0, time.UTC), false, "0999-05-06T07:08:09Z"},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true, "9999-12-31"},
		{time.Unix(0, 0), false, "1970-01-01T00:00:00Z"},
	} {
		if got := string(AppendW3CTime(nil, tc.t, tc.dateOnly)); got != tc.want {
			t.Errorf("AppendW3CTime(%v, %v) = %q, want %q", tc.t, tc.dateOnly, got, tc.want)
		}
		if !tc.dateOnly {
			if back, err := time.Parse(time.RFC3339, tc.want); err != nil || !back.Equal(tc.t.Truncate(time.Second)) {
				t.Errorf("%q parses back as %v, %v; want %v", tc.want, back, err, tc.t)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { AppendW3CTime(make([]byte, 0, 32)[:0], time.Now(), false) }); n > 1 {
		t.Errorf("AppendW3CTime allocates %v times", n)
	}
}

// TestW3CDates: times written one after another by one w3cDates, which
// remembers the last date, read as AppendW3CTime writes each alone, when
// the day stays, changes, comes back, or is written as a date alone.
func TestW3CDates(t *testing.T) {
	day := time.Date(2024, 2, 28, 23, 59, 59, 0, time.UTC)
	var d w3cDates
	var b []byte
	for i, tm := range []time.Time{day, day.Add(-time.Hour), day.Add(time.Second), day.Add(time.Second + 24*time.Hour),
		day.Add(time.Second), day.Add(-10 * 365 * 24 * time.Hour), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), time.Unix(0, 0)} {
		for _, dateOnly := range []bool{false, true} {
			b = d.append(b[:0], tm.Unix(), dateOnly)
			if want := AppendW3CTime(nil, tm, dateOnly); string(b) != string(want) {
				t.Errorf("time %d (%v, date only %v): %q, want %q", i, tm, dateOnly, b, want)
			}
		}
	}
}

func TestValidYear(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want bool
	}{
		{time.Time{}, true},
		{day(9999, 12, 31), true},
		{day(10000, 1, 1), false},
		{day(0, 12, 31), false},
		{time.Date(0, 12, 31, 23, 0, 0, 0, time.FixedZone("-02:00", -2*60*60)), true}, // 0001-01-01T01:00Z
	} {
		if got := ValidYear(tc.t); got != tc.want {
			t.Errorf("ValidYear(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

func TestAppendDecimal(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "0.0"},
		{1, "1.0"},
		{0.5, "0.5"},
		{0.8, "0.8"},
		{1.0 / 3, "0.3333333333333333"},
		{4.25, "4.25"},
		{5, "5.0"},
		{1e-7, "0.0000001"},
	} {
		got := appendDecimal(nil, tc.f)
		if string(got) != tc.want {
			t.Errorf("appendDecimal(%v) = %q, want %q", tc.f, got, tc.want)
		}
		if bytes.ContainsAny(got, "e+-") {
			t.Errorf("appendDecimal(%v) = %q is not an xsd:decimal", tc.f, got)
		}
	}
}

// TestCivilDate compares the calendar arithmetic with package time on every
// day from year 1 to 9999, and on times around midnight.
func TestCivilDate(t *testing.T) {
	if got := time.Unix(unixYear0March, 0).UTC(); got != day(0, 3, 1) {
		t.Fatalf("unixYear0March is %v", got)
	}
	for d := day(1, 1, 1); d.Year() < 10000; d = d.AddDate(0, 0, 1) {
		y, m, dd := civilDate(uint32((d.Unix() - unixYear0March) / secondsPerDay))
		if wy, wm, wd := d.Date(); int(y) != wy || int(m) != int(wm) || int(dd) != wd {
			t.Fatalf("civilDate of %v is %d-%d-%d", d, y, m, dd)
		}
	}
	for _, base := range []time.Time{day(1, 1, 2), day(1969, 12, 31), day(1970, 1, 1), day(2000, 2, 29), day(9999, 12, 31)} {
		for _, off := range []time.Duration{-time.Second, -time.Nanosecond, 0, time.Nanosecond, time.Second, 12 * time.Hour} {
			tm := base.Add(off)
			if tm.Year() < 1 {
				continue
			}
			if got, want := string(AppendW3CTime(nil, tm, false)), tm.UTC().Format("2006-01-02T15:04:05Z"); got != want {
				t.Errorf("AppendW3CTime(%v) = %s, want %s", tm, got, want)
			}
		}
	}
	if !ValidYear(day(1, 1, 1)) || ValidYear(day(1, 1, 1).Add(-time.Nanosecond)) || !ValidYear(day(10000, 1, 1).Add(-time.Nanosecond)) || ValidYear(day(10000, 1, 1)) {
		t.Error("ValidYear is wrong at the edges of years 1 and 9999")
	}
}
