package demo

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMainsCopyable checks that the examples' main.go files, which the
// README says to copy, import no internal package: Go refuses those to a
// program outside this module, so a copied main.go would not compile.
func TestMainsCopyable(t *testing.T) {
	mains, err := filepath.Glob(filepath.Join("..", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mains) < 2 {
		t.Fatalf("found %d examples' main.go, want nethttp's and chi's at least", len(mains))
	}
	for _, path := range mains {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if p == "internal" || strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
				t.Errorf("%s imports %s, which a program outside the module cannot", path, p)
			}
		}
	}
}
