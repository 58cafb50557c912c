package sitemap_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
)

// readmeTable returns the first cell of each row of the first table under
// the README heading, with its backquotes removed.
func readmeTable(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	cell := regexp.MustCompile("^\\| `([A-Za-z]+)` \\|")
	var names []string
	inTable := false
	for line := range strings.Lines(sec) {
		m := cell.FindStringSubmatch(line)
		switch {
		case m != nil:
			names, inTable = append(names, m[1]), true
		case inTable && !strings.HasPrefix(line, "|"):
			return names // the first table only
		}
	}
	return names
}

// TestReadmeConfig: the README's Configuration table lists every Config
// field once, and no other (in any order).
func TestReadmeConfig(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[sitemap.Config]().Fields() {
		if f.IsExported() {
			fields = append(fields, f.Name)
		}
	}
	rows := readmeTable(t, "## Configuration")
	for _, f := range fields {
		if n := count(rows, f); n != 1 {
			t.Errorf("Config.%s is in the README's Configuration table %d times, want once", f, n)
		}
	}
	for _, r := range rows {
		if !slices.Contains(fields, r) {
			t.Errorf("the README's Configuration table lists %s, which is not a Config field", r)
		}
	}
}

func count(s []string, v string) (n int) {
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}
