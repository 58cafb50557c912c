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
//   - TestLayoutReadme: the table under "## Layout" in README.md names every
//     non-test .go file of the package, and no .go file that does not exist;
//     and it lists them in the order calls go: no file calls a file on an
//     earlier row (files on one row may call each other).
//
// To re-configure the guard, edit the two lists below: frontFiles, the files
// that may hold Sitemap methods, and leafGroups, the groups of files meant to
// recurse into each other (keep them small and low in the package, like the
// encoder's parts; never the build pipeline).

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
		l := &layoutData
		l.fset = token.NewFileSet()
		l.files = map[string]*ast.File{}
		paths, _ := filepath.Glob("*.go")
		var files []*ast.File
		for _, p := range paths {
			if ok, _ := build.Default.MatchFile(".", p); !ok || strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(l.fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				l.err = err
				return
			}
			l.files[p] = f
			l.names = append(l.names, p)
			files = append(files, f)
		}
		slices.Sort(l.names)
		l.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: exportImporter(l.fset)}
		l.pkg, l.err = conf.Check(layoutPath, l.fset, files, l.info)
		l.elapsed = time.Since(start)
	})
	if layoutData.err != nil {
		t.Fatalf("loading the package: %v", layoutData.err)
	}
	return &layoutData
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
