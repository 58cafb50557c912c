// Package tally sums up what one build reports about its URLs for one
// log line: counts by reason (the field and the rule, or the error) in the
// order first seen, and the first few URLs as examples, quoted short.
package tally

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/freshmap/sitemap/urlset"
)

// MaxExamples is how many URLs a Tally keeps.
const MaxExamples = 3

// Tally counts the reports of one log line by reason, and keeps the first
// few URLs as examples. Its zero value is empty and ready.
type Tally struct {
	N        int // the reports
	reasons  map[reason]int
	order    []reason // the reasons in the order first seen
	examples []string
}

// reason is why a URL was reported: the field and the rule it broke (an
// *urlset.InvalidURLError), or (field "") another error, such as
// urlset.ErrPageFull or urlset.ErrSelfLinkAdded.
type reason struct {
	field string
	err   error
}

func reasonOf(err error) reason {
	if bad := (*urlset.InvalidURLError)(nil); errors.As(err, &bad) {
		return reason{bad.Field, bad.Err}
	}
	return reason{err: err}
}

func (x reason) String() string {
	text := strings.TrimPrefix(x.err.Error(), "sitemap: ")
	if x.field == "" {
		return text
	}
	return x.field + ": " + text
}

// Add counts the report of loc for err.
func (t *Tally) Add(loc string, err error) {
	x := reasonOf(err)
	if t.reasons == nil {
		t.reasons = make(map[reason]int)
	}
	if t.reasons[x]++; t.reasons[x] == 1 {
		t.order = append(t.order, x)
	}
	if t.N++; len(t.examples) < MaxExamples {
		t.examples = append(t.examples, Quote(loc)+" ("+x.String()+")")
	}
}

// Attrs are the log attributes of t: the reasons with their counts, and
// the examples.
func (t *Tally) Attrs() []any {
	var reasons strings.Builder
	for i, x := range t.order {
		if i > 0 {
			reasons.WriteString("; ")
		}
		reasons.WriteString(x.String())
		reasons.WriteString(": ")
		reasons.WriteString(strconv.Itoa(t.reasons[x]))
	}
	return []any{"reasons", reasons.String(), "examples", strings.Join(t.examples, "; ")}
}

// Quote shortens a loc for an error message, cutting it at a rune
// boundary.
func Quote(s string) string {
	const max = 200
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}

// ReasonOf is the reason Add counts err under, as Attrs writes it.
func ReasonOf(err error) string { return reasonOf(err).String() }
