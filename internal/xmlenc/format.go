package xmlenc

import (
	"slices"
	"strconv"
	"time"
)

// AppendW3CTime appends t in W3C Datetime form, in UTC to the second
// (2006-01-02T15:04:05Z), or as a date alone (2006-01-02) when dateOnly.
// It does not allocate. The caller checks the year with ValidYear first.
func AppendW3CTime(b []byte, t time.Time, dateOnly bool) []byte {
	var d w3cDates
	return d.append(b, t.Unix(), dateOnly)
}

// w3cDates writes times as AppendW3CTime does, remembering the date of the
// last one: the lastmods of a page often share their day (a page in
// lastmod order, a bulk import), and then the date is computed once.
type w3cDates struct {
	day  uint64 // days since 0000-03-01 of date, plus one; 0 for none
	date [len("2006-01-02")]byte
}

// append is AppendW3CTime of the time unix seconds since 1970 (UTC, a
// valid year).
func (c *w3cDates) append(b []byte, unix int64, dateOnly bool) []byte {
	// Seconds since 0000-03-01T00:00:00Z: never negative in years 1-9999,
	// which lets the arithmetic below be unsigned (and fast).
	secs := uint64(unix - unixYear0March)
	days := secs / secondsPerDay
	if days+1 != c.day {
		y, m, d := civilDate(uint32(days))
		p := &c.date
		*(*[2]byte)(p[0:2]) = digitPairs[uint8(y/100)]
		*(*[2]byte)(p[2:4]) = digitPairs[uint8(y%100)]
		p[4] = '-'
		*(*[2]byte)(p[5:7]) = digitPairs[uint8(m)]
		p[7] = '-'
		*(*[2]byte)(p[8:10]) = digitPairs[uint8(d)]
		c.day = days + 1
	}
	const size = len("2006-01-02T15:04:05Z")
	n := len(b)
	b = slices.Grow(b, size)
	p := (*[size]byte)(b[n : n+size]) // the digits are written in place, within b's capacity
	*(*[len("2006-01-02")]byte)(p[:10]) = c.date
	if dateOnly {
		return b[:n+len("2006-01-02")]
	}
	s := uint32(secs - days*secondsPerDay)
	h := s / 3600
	s -= h * 3600
	mi := s / 60
	p[10] = 'T'
	*(*[2]byte)(p[11:13]) = digitPairs[uint8(h)]
	p[13] = ':'
	*(*[2]byte)(p[14:16]) = digitPairs[uint8(mi)]
	p[16] = ':'
	*(*[2]byte)(p[17:19]) = digitPairs[uint8(s-mi*60)]
	p[19] = 'Z'
	return b[:n+size]
}

// digitPairs[i] is i, from 0 to 99, in two digits; indexing it with a byte
// needs no bounds check.
var digitPairs = func() (t [256][2]byte) {
	for i := range 100 {
		t[i] = [2]byte{byte('0' + i/10), byte('0' + i%10)}
	}
	return t
}()

const secondsPerDay = 24 * 60 * 60

// civilDate returns the proleptic Gregorian date of a day counted from
// 0000-03-01, with the multiply-and-shift method of Neri and Schneider
// ("Euclidean affine functions and their application to calendar
// algorithms", 2022). Years start on 1 March, so that the leap day falls at
// the end of a year; centuries hold 36,524 or 36,525 days.
func civilDate(days uint32) (year, month, day uint32) {
	n1 := 4*days + 3
	century := n1 / 146097
	n2 := n1%146097 | 3                // 4 × (day of the century) + 3
	p2 := uint64(2939745) * uint64(n2) // 2939745 / 2^32 ≈ 4 / 1461 (days in 4 years)
	yoc := uint32(p2 >> 32)            // year of the century
	doy := uint32(p2) / 2939745 / 4    // day of the year from 1 March, 0-365
	n3 := 2141*doy + 197913            // 2141 / 2^16 ≈ 5 / 153 (days in 5 months)
	year, month, day = 100*century+yoc, n3>>16, (n3&0xFFFF)/2141+1
	if doy >= 306 { // January or February: the next year
		year, month = year+1, month-12
	}
	return year, month, day
}

// Instants in Unix seconds: 0000-03-01, and where the years 0001 and
// 10000 begin.
const (
	unixYear0March = -62162035200
	unixYear1      = -62135596800
	unixYear10000  = 253402300800
)

// ValidYear reports whether t can be written as a four-digit W3C year,
// that is whether t is within the years 0001 to 9999 in UTC.
func ValidYear(t time.Time) bool {
	return validUnixYear(t.Unix())
}

// validUnixYear is ValidYear of a time in Unix seconds.
func validUnixYear(unix int64) bool {
	return unix >= unixYear1 && unix < unixYear10000
}

// appendDecimal writes f with as few digits as round-trip, always with a
// fractional part: 0.8, 1.0, 0.0, 4.25. Negative zero is written as 0.0.
func appendDecimal(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // drops the sign of -0
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[n:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}
