package check_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/check"
)

// TestReadmeRules: the README's rule table is check.Rules, row for row.
func TestReadmeRules(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| rule | severity | what it asks |\n| --- | --- | --- |\n")
	for _, r := range check.Rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Severity, strings.ReplaceAll(r.Doc, "|", `\|`))
	}
	if !strings.Contains(string(data), b.String()) {
		t.Errorf("the README's rule table is not check.Rules; it should read:\n%s", b.String())
	}
}
