package check_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/check"
)

// TestDocsRules: the rule table of docs/checking.md is check.Rules, row
// for row.
func TestDocsRules(t *testing.T) {
	data, err := os.ReadFile("../docs/checking.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| rule | severity | what it asks |\n| --- | --- | --- |\n")
	for _, r := range check.Rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Severity, strings.ReplaceAll(r.Doc, "|", `\|`))
	}
	if !strings.Contains(string(data), b.String()) {
		t.Errorf("docs/checking.md's rule table is not check.Rules; it should read:\n%s", b.String())
	}
}
