package parse

import (
	"errors"
	"time"
)

var errDatetime = errors.New("not a W3C datetime")

// parseW3C reads every form of W3C Datetime the sitemap protocol allows:
// YYYY, YYYY-MM, YYYY-MM-DD, and a date with hh:mmTZD, hh:mm:ssTZD or
// hh:mm:ss.sTZD (any number of fractional digits, nanoseconds kept), TZD
// being Z, +hh:mm or -hh:mm. The time is returned in UTC; dateOnly is set
// for the three forms without a time, which stand for midnight UTC of their
// first day.
func parseW3C(s string) (t time.Time, dateOnly bool, err error) {
	num := func(i, n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok := num(0, 4)
	if !ok {
		return t, false, errDatetime
	}
	month, day := 1, 1
	switch {
	case len(s) == 4:
		return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), true, nil
	case len(s) >= 7 && s[4] == '-':
		if month, ok = num(5, 2); !ok || month < 1 || month > 12 {
			return t, false, errDatetime
		}
		if len(s) == 7 {
			return time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC), true, nil
		}
		if len(s) < 10 || s[7] != '-' {
			return t, false, errDatetime
		}
		if day, ok = num(8, 2); !ok || day < 1 || day > daysIn(year, month) {
			return t, false, errDatetime
		}
	default:
		return t, false, errDatetime
	}
	if len(s) == 10 {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), true, nil
	}
	// Thh:mm[:ss[.s+]]TZD
	if s[10] != 'T' || len(s) < 17 || s[13] != ':' {
		return t, false, errDatetime
	}
	hour, ok1 := num(11, 2)
	minute, ok2 := num(14, 2)
	if !ok1 || !ok2 || hour > 23 || minute > 59 {
		return t, false, errDatetime
	}
	sec, nsec, i := 0, 0, 16
	if s[i] == ':' {
		if sec, ok = num(17, 2); !ok || sec > 59 {
			return t, false, errDatetime
		}
		i = 19
		if i < len(s) && s[i] == '.' {
			i++
			start := i
			for scale := 100_000_000; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				nsec += int(s[i]-'0') * scale
				scale /= 10
			}
			if i == start {
				return t, false, errDatetime
			}
		}
	}
	offset := 0
	switch tz := s[i:]; {
	case tz == "Z":
	case len(tz) == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':':
		h, ok1 := num(i+1, 2)
		m, ok2 := num(i+4, 2)
		if !ok1 || !ok2 || h > 23 || m > 59 {
			return t, false, errDatetime
		}
		if offset = h*3600 + m*60; tz[0] == '-' {
			offset = -offset
		}
	default:
		return t, false, errDatetime
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), false, nil
}

// daysIn returns the number of days of a month of the proleptic Gregorian calendar.
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
