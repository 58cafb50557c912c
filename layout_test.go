package sitemap

// The layout guard keeps the root package's shape. It parses and type-checks
// the package's non-test files and checks three rules:
//
//   - TestLayoutFront: every method of Sitemap (value or pointer receiver) is
//     declared in one of frontFiles, the public front. The rest of the package
//     works on smaller types, not on the whole Sitemap.
//   - TestLayoutCalls: no cycle in the file-level call graph, except inside
//     one of leafGroups. A→B when a function, method or package-level var
//     initialiser declared in file A calls or takes the value of a function
//     or method declared in file B. Every strongly connected component of
//     more than one file must fit in one group; a failure lists the cycle's
//     files and one example call per edge in it, to show what to cut.
//   - TestLayoutRefs: no cycle in the file-level reference graph, except
//     inside one of refGroups. A→B when an identifier in file A names a
//     type, field, method, function, var or const declared in file B (every
//     use go/types records, not only calls): a feature that reaches the core
//     through a type, a field or a func value is seen. Every strongly
//     connected component of more than one file must fit in one group; a
//     failure lists its files and one example reference per edge, and the
//     test logs the largest component (issue 29's goal: at most 20 files).
//     A group names only files in a cycle: one that leaves every cycle
//     fails the test until it is taken out of its group.
//     TestLayoutRefsChecker proves the checker on a package made in memory.
//   - TestLayoutReadme: the table under "## Layout" in README.md names every
//     non-test .go file of the package, and no .go file that does not exist;
//     and it lists them in the order calls go: no file calls a file on an
//     earlier row (files on one row may call each other).
//
// To re-configure the guard, edit the lists below: frontFiles, the files
// that may hold Sitemap methods; leafGroups, the groups of files meant to
// call each other in a cycle (keep them small and low in the package, like
// the encoder's parts; never the build pipeline); and refGroups, the groups
// meant to refer to each other, each with its reason.

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// frontFiles are the files that may declare methods of Sitemap.
var frontFiles = []string{"sitemap.go", "handler.go", "middleware.go", "robots.go", "stats.go"}

// leafGroups are the groups of files allowed to call each other in a cycle.
var leafGroups = [][]string{}

// refGroups are the groups of files allowed to refer to each other in a
// cycle (TestLayoutRefs), each with its reason.
var refGroups = []refGroup{
	// The engine and the features whose glue reads its state, which the
	// site's settings (the Atom feeds' types) and the reporter (the audit,
	// purge, IndexNow and per-section counters) hold by their own types:
	// the knot issue 29 cuts (47 files at dc1837d; 16 once the encoder and
	// the features' machinery left for internal packages, the engine's own
	// files refer one way and the names and routes read only siteNames).
	// Re-declare it smaller after each cut.
	{"the engine and the features whose glue is still in the root (issue 29)", []string{
		"build.go", "cache.go", "clock.go", "clockfile.go", "documents.go", "entry.go", "feed.go",
		"guard.go", "html.go", "latest.go", "plain.go", "purge.go", "record.go", "reporter.go",
		"settings.go", "tier.go",
	}},
	{"the fleet's tier and its era: a lost Store state is found by the tier and handled by the era, which takes the fleet's lock", []string{"era.go", "fleet.go"}},
	{"the public front (robots.go holds Sitemap's robots.txt methods) and the warm-up, which reads its Config", []string{"robots.go", "sitemap.go", "warmup.go"}},
}

// layoutPkg is the root package, parsed and type-checked once for all three tests.
type layoutPkg struct {
	fset    *token.FileSet
	files   map[string]*ast.File // by base name
	names   []string             // sorted base names
	pkg     *types.Package
	info    *types.Info
	elapsed time.Duration
	err     error
}

const layoutPath = "github.com/freshmap/sitemap"

var layoutOnce sync.Once
var layoutData layoutPkg

func loadLayout(t *testing.T) *layoutPkg {
	t.Helper()
	layoutOnce.Do(func() {
		start := time.Now()
		fset := token.NewFileSet()
		files := map[string]*ast.File{}
		paths, _ := filepath.Glob("*.go")
		for _, p := range paths {
			if ok, _ := build.Default.MatchFile(".", p); !ok || strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				layoutData.err = err
				return
			}
			files[p] = f
		}
		l, err := checkLayout(fset, files, layoutPath, exportImporter(fset))
		if err != nil {
			layoutData.err = err
			return
		}
		layoutData = *l
		layoutData.elapsed = time.Since(start)
	})
	if layoutData.err != nil {
		t.Fatalf("loading the package: %v", layoutData.err)
	}
	return &layoutData
}

// checkLayout type-checks files (by base name, parsed with fset) as the
// package path, for the guard's rules.
func checkLayout(fset *token.FileSet, files map[string]*ast.File, path string, imp types.Importer) (*layoutPkg, error) {
	l := &layoutPkg{fset: fset, files: files, names: slices.Sorted(maps.Keys(files))}
	l.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	var list []*ast.File
	for _, name := range l.names {
		list = append(list, files[name])
	}
	var err error
	l.pkg, err = conf.Check(path, fset, list, l.info)
	return l, err
}

// exportImporter reads the imports' compiled export data, which one
// "go list -export" finds in the build cache (well under a second once the
// test binary is built). If that fails it type-checks the imports from
// source instead, which is slower (about 4 s).
func exportImporter(fset *token.FileSet) types.Importer {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".").Output()
	if err != nil {
		return importer.ForCompiler(fset, "source", nil)
	}
	export := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "=")
		export[path] = file
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if export[path] == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(export[path])
	})
}

// fileOf is the base name of the file that declares obj, "" if not one of ours.
func (l *layoutPkg) fileOf(obj types.Object) string {
	if obj == nil || obj.Pkg() != l.pkg || !obj.Pos().IsValid() {
		return ""
	}
	if name := l.fset.Position(obj.Pos()).Filename; l.files[name] != nil {
		return name
	}
	return ""
}

// funcName is a function's name, with its receiver for a method: "(*Sitemap).build".
func funcName(f *types.Func) string {
	return strings.ReplaceAll(f.FullName(), layoutPath+".", "")
}

func TestLayoutFront(t *testing.T) {
	l := loadLayout(t)
	obj, _ := l.pkg.Scope().Lookup("Sitemap").(*types.TypeName)
	if obj == nil {
		t.Fatal("no type Sitemap in the package")
	}
	named := obj.Type().(*types.Named)
	perFile := map[string]int{}
	var bad []string
	for m := range named.Methods() {
		file := l.fileOf(m)
		perFile[file]++
		if !slices.Contains(frontFiles, file) {
			bad = append(bad, fmt.Sprintf("%s: %s is outside the public front", file, funcName(m)))
		}
	}
	slices.Sort(bad)
	t.Logf("figures: %d Sitemap methods in %d files (%d in the front files %v)",
		named.NumMethods(), len(perFile), named.NumMethods()-len(bad), frontFiles)
	if len(bad) > 0 {
		t.Errorf("%d Sitemap methods outside the public front:\n\t%s", len(bad), strings.Join(bad, "\n\t"))
	}
}

// callGraph is the file-level graph: graph[a][b] is one example "a.go:f → b.go:g".
func (l *layoutPkg) callGraph() map[string]map[string]string {
	graph := map[string]map[string]string{}
	for _, a := range l.names {
		graph[a] = map[string]string{}
		// walk adds the edges of one caller: a function or a var spec.
		walk := func(caller ast.Node, name string) {
			ast.Inspect(caller, func(n ast.Node) bool {
				id, _ := n.(*ast.Ident)
				f, ok := l.info.Uses[id].(*types.Func)
				if !ok || f.Signature().Recv() != nil && types.IsInterface(f.Signature().Recv().Type()) {
					return true // not a function, or an interface's abstract method
				}
				if b := l.fileOf(f.Origin()); b != "" && b != a && graph[a][b] == "" {
					graph[a][b] = fmt.Sprintf("%s:%s → %s:%s", a, name, b, funcName(f.Origin()))
				}
				return true
			})
		}
		for _, decl := range l.files[a].Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				walk(d, funcName(l.info.Defs[d.Name].(*types.Func)))
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok && d.Tok == token.VAR {
						walk(vs, "var "+vs.Names[0].Name)
					}
				}
			}
		}
	}
	return graph
}

// sccs is Tarjan's algorithm over the files, in sorted order.
func sccs(names []string, graph map[string]map[string]string) [][]string {
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range slices.Sorted(maps.Keys(graph[v])) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] { // v is the root of a component: pop it
			i := slices.Index(stack, v)
			comp := slices.Sorted(slices.Values(stack[i:]))
			for _, w := range comp {
				onStack[w] = false
			}
			stack = stack[:i]
			out = append(out, comp)
		}
	}
	for _, v := range names {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}

func TestLayoutCalls(t *testing.T) {
	l := loadLayout(t)
	graph := l.callGraph()
	edges, largest := 0, 0
	for _, to := range graph {
		edges += len(to)
	}
	for _, comp := range sccs(l.names, graph) {
		largest = max(largest, len(comp))
		if len(comp) < 2 || slices.ContainsFunc(leafGroups, func(g []string) bool {
			return !slices.ContainsFunc(comp, func(f string) bool { return !slices.Contains(g, f) })
		}) {
			continue
		}
		var lines []string
		for _, a := range comp {
			for _, b := range comp {
				if ex := graph[a][b]; ex != "" {
					lines = append(lines, ex)
				}
			}
		}
		t.Errorf("a call cycle of %d files outside leafGroups: %s\n%d edges inside it, one example each:\n\t%s",
			len(comp), strings.Join(comp, ", "), len(lines), strings.Join(lines, "\n\t"))
	}
	t.Logf("figures: %d files, %d file-to-file edges, largest cycle %d files (loaded and type-checked in %v)",
		len(l.names), edges, largest, l.elapsed.Round(time.Millisecond))
}

// refGraph is the file-level graph of every reference: graph[a][b] is one
// example "a.go:12 → b.go:Name" when an identifier in file A names a type,
// field, method, function, var or const that file B declares. It sees what
// callGraph cannot: a file that reaches another through a type, a field, a
// constant or a func value without calling it.
func (l *layoutPkg) refGraph() map[string]map[string]string {
	graph := map[string]map[string]string{}
	for _, a := range l.names {
		graph[a] = map[string]string{}
	}
	for id, obj := range l.info.Uses {
		switch o := obj.(type) { // a generic's instance is declared where its origin is
		case *types.Func:
			obj = o.Origin()
		case *types.Var:
			obj = o.Origin()
		}
		pos := l.fset.Position(id.Pos())
		a, b := pos.Filename, l.fileOf(obj)
		if b == "" || b == a || graph[a] == nil {
			continue
		}
		ex := fmt.Sprintf("%s:%d → %s:%s", a, pos.Line, b, obj.Name())
		if old := graph[a][b]; old == "" || ex < old { // the same example whatever the map's order
			graph[a][b] = ex
		}
	}
	return graph
}

// refGroup is a set of files allowed to refer to each other in a cycle,
// and why.
type refGroup struct {
	why   string
	files []string
}

// checkRefs returns the strongly connected components of graph, over the
// files names, that have more than one file and fit in no group (each as
// a message listing its files and one example reference per edge inside
// it), and the largest component of all.
func checkRefs(names []string, graph map[string]map[string]string, groups []refGroup) (bad []string, largest []string) {
	for _, comp := range sccs(names, graph) {
		if len(comp) > len(largest) {
			largest = comp
		}
		if len(comp) < 2 || slices.ContainsFunc(groups, func(g refGroup) bool {
			return !slices.ContainsFunc(comp, func(f string) bool { return !slices.Contains(g.files, f) })
		}) {
			continue
		}
		var lines []string
		for _, a := range comp {
			for _, b := range comp {
				if ex := graph[a][b]; ex != "" {
					lines = append(lines, ex)
				}
			}
		}
		bad = append(bad, fmt.Sprintf("a reference cycle of %d files outside refGroups: %s\n%d edges inside it, one example each:\n\t%s",
			len(comp), strings.Join(comp, ", "), len(lines), strings.Join(lines, "\n\t")))
	}
	return bad, largest
}

func TestLayoutRefs(t *testing.T) {
	l := loadLayout(t)
	graph := l.refGraph()
	edges := 0
	for _, to := range graph {
		edges += len(to)
	}
	bad, largest := checkRefs(l.names, graph, refGroups)
	for _, msg := range bad {
		t.Error(msg)
	}
	inCycle := map[string]bool{}
	for _, comp := range sccs(l.names, graph) {
		for _, f := range comp {
			inCycle[f] = len(comp) > 1
		}
	}
	for _, g := range refGroups {
		for _, f := range g.files {
			switch {
			case l.files[f] == nil:
				t.Errorf("refGroups names %s, which is not a file of the package (group: %s)", f, g.why)
			case !inCycle[f]: // a group lists only what must be there, so that it lets no new cycle in
				t.Errorf("refGroups names %s, which is in no reference cycle now: remove it from its group (%s)", f, g.why)
			}
		}
	}
	t.Logf("figures: %d files, %d file-to-file references, largest reference cycle %d files (goal: at most 20): %s",
		len(l.names), edges, len(largest), strings.Join(largest, ", "))
}

func TestLayoutReadme(t *testing.T) {
	l := loadLayout(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	named := map[string]int{} // file → its row
	backticked := regexp.MustCompile("`([^`]+)`")
	row := 0
	for line := range strings.Lines(section) {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		row++
		for _, m := range backticked.FindAllStringSubmatch(strings.Split(line, "|")[1], -1) {
			if strings.HasSuffix(m[1], ".go") {
				named[m[1]] = row
			}
		}
	}
	for _, name := range l.names {
		if _, ok := named[name]; !ok {
			t.Errorf("README.md's Layout table does not name %s", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(named)) {
		if l.files[name] == nil {
			t.Errorf("README.md's Layout table names %s, which is not a file of the package", name)
		}
	}
	graph, up := l.callGraph(), 0
	for _, a := range l.names {
		for _, b := range slices.Sorted(maps.Keys(graph[a])) {
			if ra, rb := named[a], named[b]; ra != 0 && rb != 0 && rb < ra {
				up++
				t.Errorf("README.md's Layout table lists %s above %s, which calls it: %s", b, a, graph[a][b])
			}
		}
	}
	t.Logf("figures: the Layout table names %d .go files; the package has %d; %d calls go up the table",
		len(named), len(l.names), up)
}

// TestLayoutRefsChecker holds the reference guard to its word on a small
// package made in memory: a cycle of files through types, fields and
// constants alone, with no call, fails it (and the call guard misses it);
// the same package without the cycle, or with its files declared a
// group, passes.
func TestLayoutRefsChecker(t *testing.T) {
	load := func(t *testing.T, src map[string]string) *layoutPkg {
		t.Helper()
		fset := token.NewFileSet()
		files := map[string]*ast.File{}
		for name, text := range src {
			f, err := parser.ParseFile(fset, name, "package synth\n"+text, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = f
		}
		l, err := checkLayout(fset, files, "example.com/synth", importer.Default())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	acyclic := map[string]string{
		"a.go": "type A struct{ b *B }\nfunc (a A) Size() int { return a.b.n + limit }",
		"b.go": "type B struct{ n int }\nvar defaultB = B{n: 2}",
		"c.go": "const limit = 3",
	}
	cyclic := maps.Clone(acyclic)
	cyclic["c.go"] = "const limit = 3\nvar holder struct{ a A }" // c → a → c, through a type and a constant
	cyclic["d.go"] = "func use() int { return holder.a.Size() }" // d calls into the cycle: not in it

	t.Run("acyclic", func(t *testing.T) {
		l := load(t, acyclic)
		bad, largest := checkRefs(l.names, l.refGraph(), nil)
		if len(bad) > 0 || len(largest) != 1 {
			t.Errorf("an acyclic package: failures %q, largest component %v; want none and 1 file", bad, largest)
		}
	})
	t.Run("cycle", func(t *testing.T) {
		l := load(t, cyclic)
		graph := l.refGraph()
		bad, largest := checkRefs(l.names, graph, nil)
		if want := []string{"a.go", "c.go"}; !slices.Equal(largest, want) {
			t.Errorf("largest component %v, want %v", largest, want)
		}
		if len(bad) != 1 || !strings.Contains(bad[0], "2 files outside refGroups: a.go, c.go") ||
			!strings.Contains(bad[0], "a.go:3 → c.go:limit") || !strings.Contains(bad[0], "c.go:3 → a.go:A") {
			t.Errorf("failures %q, want one naming a.go and c.go with an example edge each way", bad)
		}
		if graph["d.go"]["a.go"] == "" {
			t.Errorf("no edge d.go → a.go for a call of a method: %v", graph)
		}
		for _, comp := range sccs(l.names, l.callGraph()) {
			if len(comp) > 1 {
				t.Errorf("the call graph has the cycle %v; this case is meant to show what only references see", comp)
			}
		}
	})
	t.Run("declared", func(t *testing.T) {
		l := load(t, cyclic)
		if bad, _ := checkRefs(l.names, l.refGraph(), []refGroup{{"a type and its limit", []string{"a.go", "c.go"}}}); len(bad) > 0 {
			t.Errorf("a cycle inside a declared group fails: %q", bad)
		}
		if bad, _ := checkRefs(l.names, l.refGraph(), []refGroup{{"too small", []string{"a.go", "b.go"}}}); len(bad) != 1 {
			t.Errorf("a cycle that passes its group's bounds: failures %q, want 1", bad)
		}
	})
}
