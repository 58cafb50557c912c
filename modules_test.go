package sitemap_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rootModule is the root module's path; a nested module's path is it and
// the module's directory (docs/modules.md).
const rootModule = "github.com/freshmap/sitemap"

// goModFile is what `go mod edit -json` and `go work edit -json` print
// that TestModules reads.
type goModFile struct {
	Module  struct{ Path string }
	Require []struct{ Path, Version string }
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
	Use []struct{ DiskPath string }
}

func readModFile(t *testing.T, kind, file string) goModFile {
	t.Helper()
	out, err := exec.Command("go", kind, "edit", "-json", file).Output()
	if err != nil {
		t.Fatalf("go %s edit -json %s: %v", kind, file, err)
	}
	var f goModFile
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return f
}

// TestModules keeps the modules of docs/modules.md in the shape the
// development workflow and a release rely on:
//   - go.work uses every directory that holds a go.mod, and no other, so
//     that `go test work` and CI's module loop reach every module;
//   - a nested module's path is the root's and its directory (the tag
//     scheme: one tag per directory), and it requires the root and every
//     module of this repository it requires with a replace to its
//     directory here, so that GOWORK=off builds it from this checkout;
//   - the root module requires no nested module (they depend on it);
//   - every module finds every package its code and tests import with
//     GOWORK=off: in workspace mode a root test importing chi would compile
//     through adapters/chiroutes' requirements, and fail for everyone who
//     builds the root module alone;
//   - an adapter's non-test code imports none of the root module's
//     internal packages: a released adapter runs beside any later root
//     version, whose internal packages may have changed. Its tests may
//     (internal/testkit, testenv, tcpproxy, xsdcheck, memstat): they are
//     built only here, against the root of the same commit. The examples,
//     never released, may import them anywhere but in main.go
//     (TestMainsCopyable).
func TestModules(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(p)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	work := readModFile(t, "work", "go.work")
	var used []string
	for _, u := range work.Use {
		used = append(used, path.Clean(u.DiskPath))
	}
	slices.Sort(dirs)
	slices.Sort(used)
	if !slices.Equal(dirs, used) {
		t.Errorf("go.work uses %v; the directories holding a go.mod are %v", used, dirs)
	}
	if len(dirs) < 6 {
		t.Errorf("%d modules, want the root, four adapters and the examples at least: %v", len(dirs), dirs)
	}
	for _, r := range readModFile(t, "mod", "go.mod").Require {
		if strings.HasPrefix(r.Path, rootModule+"/") {
			t.Errorf("the root module requires %s, one of its own nested modules", r.Path)
		}
	}
	for _, dir := range dirs {
		list := exec.Command("go", "list", "-e", "-test", "-deps", "-f", "{{with .Error}}{{.}}{{end}}", "./...")
		list.Dir, list.Env = dir, append(os.Environ(), "GOWORK=off")
		out, err := list.Output()
		if err != nil {
			t.Fatalf("%s: go list: %v", dir, err)
		}
		if msg := strings.TrimSpace(string(out)); msg != "" {
			t.Errorf("module %s, on its own (GOWORK=off):\n%s", dir, msg)
		}
		if dir == "." {
			continue
		}
		mod := readModFile(t, "mod", filepath.Join(dir, "go.mod"))
		if want := rootModule + "/" + dir; mod.Module.Path != want {
			t.Errorf("%s/go.mod: module %s, want %s", dir, mod.Module.Path, want)
		}
		replaced := map[string]string{}
		for _, r := range mod.Replace {
			if r.Old.Version == "" && r.New.Version == "" {
				replaced[r.Old.Path] = path.Clean(path.Join(dir, filepath.ToSlash(r.New.Path)))
			}
		}
		requiresRoot := false
		for _, r := range mod.Require {
			if r.Path != rootModule && !strings.HasPrefix(r.Path, rootModule+"/") {
				continue
			}
			requiresRoot = requiresRoot || r.Path == rootModule
			want := strings.TrimPrefix(strings.TrimPrefix(r.Path, rootModule), "/")
			if want == "" {
				want = "."
			}
			if got, ok := replaced[r.Path]; !ok || got != want {
				t.Errorf("%s/go.mod requires %s without a replace to ../%s (replace: %q)", dir, r.Path, want, got)
			}
		}
		if !requiresRoot {
			t.Errorf("%s/go.mod does not require %s", dir, rootModule)
		}
		if strings.HasPrefix(dir, "examples") {
			continue
		}
		bad, err := rootInternalImports(dir, mod.Module.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%s, which a released adapter cannot rely on", b)
		}
	}
}

// rootInternalImports returns, as "file imports path", the imports of the
// root module's internal packages in the non-test Go files of the module
// modPath in dir; the module's own internal packages are its own.
func rootInternalImports(dir, modPath string) ([]string, error) {
	var bad []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if strings.HasPrefix(ip, rootModule+"/internal/") && !strings.HasPrefix(ip, modPath+"/internal/") {
				bad = append(bad, filepath.ToSlash(p)+" imports "+ip)
			}
		}
		return nil
	})
	return bad, err
}

// TestRootInternalImports: the rule of TestModules catches a non-test
// file importing the root's internal packages, and lets through a test
// file doing so and the module's own internal packages.
func TestRootInternalImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":                    "package a\n\nimport _ \"github.com/freshmap/sitemap/internal/limits\"\n",
		"a_test.go":               "package a\n\nimport _ \"github.com/freshmap/sitemap/internal/testkit\"\n",
		"b.go":                    "package a\n\nimport _ \"github.com/freshmap/sitemap/adapters/x/internal/y\"\n",
		"internal/y/y.go":         "package y\n\nimport _ \"github.com/freshmap/sitemap\"\n",
		"testdata/z/z.go":         "package z\n\nimport _ \"github.com/freshmap/sitemap/internal/limits\"\n",
		"internal/y/y_helper.go":  "package y\n\nimport _ \"github.com/freshmap/sitemap/internal/gzpipe\"\n",
		"internal/y/notgo.go.txt": "import \"github.com/freshmap/sitemap/internal/gzpipe\"\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad, err := rootInternalImports(dir, rootModule+"/adapters/x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.ToSlash(filepath.Join(dir, "a.go")) + " imports github.com/freshmap/sitemap/internal/limits",
		filepath.ToSlash(filepath.Join(dir, "internal/y/y_helper.go")) + " imports github.com/freshmap/sitemap/internal/gzpipe",
	}
	if !slices.Equal(bad, want) {
		t.Errorf("got %q, want %q", bad, want)
	}
}
