package sitemap_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
)

// The README is short; the reference is in the package's godoc and, where
// it needs prose, in docs/. These tests keep both true: the field tables
// in docs/ against the structs, every relative link and anchor of the
// README and docs/ against the tree, and the README's Go snippets against
// code that compiles.

// fieldTable returns the first cell of each row of the table in the
// Markdown file whose header row starts with header (such as "| field |"),
// with its backquotes removed.
func fieldTable(t *testing.T, file, header string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n"+header)
	if !ok {
		t.Fatalf("%s has no table headed %q", file, header)
	}
	cell := regexp.MustCompile("^\\| `([A-Za-z]+)` \\|")
	var names []string
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "|") && names != nil {
			break // the table ends
		}
		if m := cell.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// checkFields reports a struct's exported field missing from rows, listed
// twice, or a row that names no field.
func checkFields(t *testing.T, typ reflect.Type, rows []string, where string) {
	t.Helper()
	var fields []string
	for f := range typ.Fields() {
		if f.IsExported() {
			fields = append(fields, f.Name)
		}
	}
	for _, f := range fields {
		if n := count(rows, f); n != 1 {
			t.Errorf("%s.%s is in %s %d times, want once", typ.Name(), f, where, n)
		}
	}
	for _, r := range rows {
		if !slices.Contains(fields, r) {
			t.Errorf("%s lists %s, which is not a %s field", where, r, typ.Name())
		}
	}
}

// TestDocsFieldTables: the field tables of docs/ list every field of
// their struct once, and no other (in any order).
func TestDocsFieldTables(t *testing.T) {
	for _, c := range []struct {
		typ          reflect.Type
		file, header string
	}{
		{reflect.TypeFor[sitemap.Config](), "docs/config.md", "| field | default | meaning |"},
		{reflect.TypeFor[sitemap.Audit](), "docs/audit.md", "| `Audit` field |"},
		{reflect.TypeFor[sitemap.IndexNow](), "docs/indexnow.md", "| `IndexNow` field |"},
		{reflect.TypeFor[sitemap.Crawlers](), "docs/crawl-log.md", "| `Crawlers` field |"},
	} {
		rows := fieldTable(t, c.file, c.header)
		if len(rows) == 0 {
			t.Errorf("%s: the table headed %q has no rows", c.file, c.header)
		}
		checkFields(t, c.typ, rows, c.file+"'s table")
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

// markdownFiles returns README.md and every file of docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ holds no Markdown file")
	}
	return append([]string{"README.md"}, docs...)
}

// outsideFences returns the lines of a Markdown document that are not in
// a fenced code block.
func outsideFences(doc string) []string {
	var out []string
	fence := false
	for line := range strings.Lines(doc) {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, line)
		}
	}
	return out
}

// anchors returns the anchors GitHub gives the headings of a Markdown
// document: lower case, backquotes and punctuation but '-' and '_' taken
// out, spaces made '-', and "-1", "-2"… added to a repeated one.
func anchors(doc string) map[string]bool {
	heading := regexp.MustCompile(`^#{1,6} (.+)$`)
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range outsideFences(doc) {
		m := heading.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			continue
		}
		a := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocsLinks: every relative link of the README and docs/ names a file
// or directory that exists, and every #anchor a heading of its document.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, file := range markdownFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range outsideFences(string(data)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://") {
					continue
				}
				checked++
				path, frag, _ := strings.Cut(target, "#")
				doc := data
				if path != "" {
					full := filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if _, err := os.Stat(full); err != nil {
						t.Errorf("%s links to %s, which does not exist", file, target)
						continue
					}
					if frag == "" {
						continue
					}
					if !strings.HasSuffix(path, ".md") {
						t.Errorf("%s links to %s: an anchor in a file that is not Markdown", file, target)
						continue
					}
					if doc, err = os.ReadFile(full); err != nil {
						t.Fatal(err)
					}
				}
				if !anchors(string(doc))[frag] {
					t.Errorf("%s links to %s, whose document has no heading #%s", file, target, frag)
				}
			}
		}
	}
	t.Logf("figures: %d relative links checked", checked)
}

// TestReadmeSnippets: every Go block of the README is a run of lines of a
// Go file of the module (indentation aside), so that it compiles, and
// runs where that file is an example.
func TestReadmeSnippets(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var snippets [][]string
	var cur []string
	in := false
	for line := range strings.Lines(string(data)) {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			snippets = append(snippets, cur)
		case in:
			cur = append(cur, strings.TrimSpace(line))
		}
	}
	if len(snippets) < 2 {
		t.Fatalf("the README has %d Go blocks, want the net/http and the chi example", len(snippets))
	}
	var sources [][]string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var lines []string
		for line := range strings.Lines(string(b)) {
			lines = append(lines, strings.TrimSpace(line))
		}
		sources = append(sources, lines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range snippets {
		found := false
		for _, src := range sources {
			if containsRun(src, s) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the README's Go block %d (%q…) is in no Go file of the module: copy it from an example", i+1, s[0])
		}
	}
}

// containsRun reports whether run is a contiguous run of lines.
func containsRun(lines, run []string) bool { return indexRun(lines, run) >= 0 }

// TestDocsReached: every file of docs/ is linked from the README, and
// every docs/ file the package doc links to exists, so that go doc and
// pkg.go.dev lead to the whole reference.
func TestDocsReached(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgdoc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range markdownFiles(t)[1:] {
		if !strings.Contains(string(readme), "]("+filepath.ToSlash(file)) {
			t.Errorf("the README does not link to %s", file)
		}
	}
	def := regexp.MustCompile(`(?m)^// \[[^\]]+\]: https://github\.com/freshmap/sitemap/blob/main/(\S+)$`)
	defs := def.FindAllStringSubmatch(string(pkgdoc), -1)
	if len(defs) == 0 {
		t.Fatal("doc.go links to no docs/ file")
	}
	for _, m := range defs {
		if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
			t.Errorf("doc.go links to %s, which does not exist", m[1])
		}
	}
}

// TestDocsSnippetsFrom: a Go block of the README or docs/ whose paragraph
// says it is "from [`FILE`]" is in that file, line for line (indentation
// aside; a line "..." stands for lines left out), so that the copy stays
// the code that compiles and runs.
func TestDocsSnippetsFrom(t *testing.T) {
	from := regexp.MustCompile("from \\[`([^`]+)`\\]\\(")
	checked := 0
	for _, file := range markdownFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var para, prev []string // the paragraph under way, and the one before
		var block []string
		src, in := "", false
		for line := range strings.Lines(string(data)) {
			trimmed := strings.TrimSpace(line)
			switch {
			case !in && trimmed == "```go":
				in, block, src = true, nil, ""
				if para == nil {
					para = prev
				}
				if m := from.FindStringSubmatch(strings.Join(para, " ")); m != nil {
					src = m[1]
				}
			case in && trimmed == "```":
				in = false
				if src == "" {
					continue
				}
				checked++
				code, err := os.ReadFile(filepath.FromSlash(src))
				if err != nil {
					t.Errorf("%s: a block is from %s, which cannot be read: %v", file, src, err)
					continue
				}
				var lines []string
				for l := range strings.Lines(string(code)) {
					lines = append(lines, strings.TrimSpace(l))
				}
				rest := lines
				for part := range strings.SplitSeq(strings.Join(block, "\n"), "\n...\n") {
					i := indexRun(rest, strings.Split(part, "\n"))
					if i < 0 {
						t.Errorf("%s: a block said to be from %s is not in it (from %q on)", file, src, strings.SplitN(part, "\n", 2)[0])
						break
					}
					rest = rest[i:]
				}
			case in:
				block = append(block, trimmed)
			case trimmed == "":
				if para != nil {
					prev, para = para, nil
				}
			default:
				para = append(para, trimmed)
			}
		}
	}
	if checked == 0 {
		t.Error("no Go block of the README or docs/ says where it is from")
	}
	t.Logf("figures: %d blocks checked against the files they are from", checked)
}

// indexRun returns the index of the first line of run in lines, or -1.
func indexRun(lines, run []string) int {
	for i := 0; i+len(run) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}
