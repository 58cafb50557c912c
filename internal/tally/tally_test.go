package tally

import (
	"errors"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/urlset"
)

// TestTally: reasons counted in the order first seen, by field and rule;
// at most MaxExamples examples, each loc quoted short.
func TestTally(t *testing.T) {
	var tl Tally
	bad := &urlset.InvalidURLError{Field: "loc", Err: errors.New("not absolute")}
	for range 5 {
		tl.Add("/a", bad)
	}
	tl.Add(strings.Repeat("é", 300), urlset.ErrPageFull)
	attrs := tl.Attrs()
	if tl.N != 6 || len(attrs) != 4 || attrs[1] != "loc: not absolute: 5; "+ReasonOf(urlset.ErrPageFull)+": 1" {
		t.Fatalf("N %d, attrs %q", tl.N, attrs)
	}
	if ex := attrs[3].(string); strings.Count(ex, "; ")+1 != MaxExamples || !strings.HasPrefix(ex, `"/a" (loc: not absolute)`) {
		t.Errorf("examples %q", ex)
	}
	long := Quote(strings.Repeat("é", 300))
	if len(long) > 210 || !strings.HasSuffix(long, `..."`) || !strings.HasPrefix(long, `"é`) || strings.ContainsRune(long, '\uFFFD') {
		t.Errorf("Quote cut %q", long)
	}
}
