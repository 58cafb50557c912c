package xsdcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testenv"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = format
}

func TestValidate(t *testing.T) {
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	for _, tc := range []struct {
		name  string
		check func(testing.TB, []byte)
		doc   string
		ok    bool
	}{
		{"urlset", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>`, true},
		{"urlset with extensions", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://example.com/a</loc><image:image><image:loc>https://cdn.example.com/a.jpg</image:loc></image:image><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/a"/></url></urlset>`, true},
		{"bad changefreq", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc><changefreq>sometimes</changefreq></url></urlset>`, false},
		{"hreflang de_DE", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://example.com/a</loc><xhtml:link rel="alternate" hreflang="de_DE" href="https://example.com/a"/></url></urlset>`, false},
		{"unknown namespace", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.8"><url><loc>https://example.com/a</loc><news:news/></url></urlset>`, false},
		{"not well-formed", URLSet, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>`, false},
		{"index", Index, head + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap></sitemapindex>`, true},
		{"urlset as index", Index, head + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := setup(); err != nil {
				testenv.Unavailable(t, Group, err.Error()) // skips, or fails under SITEMAP_REQUIRE_SERVICES=1
			}
			r := &recorder{TB: t}
			tc.check(r, []byte(tc.doc))
			if r.failed == tc.ok {
				t.Errorf("failed = %v, want %v", r.failed, !tc.ok)
			}
			if r.failed && !strings.Contains(r.msg, "does not validate") {
				t.Errorf("message %q does not say what failed", r.msg)
			}
		})
	}
}

func TestSchemaDirFromEnv(t *testing.T) {
	t.Setenv("SITEMAP_XSD_DIR", t.TempDir())
	if _, err := schemaDir(); err == nil {
		t.Error("an empty SITEMAP_XSD_DIR was accepted")
	}
}

func TestSchemaDirFromModule(t *testing.T) {
	t.Setenv("SITEMAP_XSD_DIR", "")
	dir, err := schemaDir()
	if err != nil {
		t.Skipf("no schema folder next to the module: %v", err)
	}
	if filepath.Base(dir) != "xsd" || filepath.Base(filepath.Dir(dir)) != "shared" {
		t.Errorf("schema folder %s, want .../shared/xsd", dir)
	}
	// from a nested module whose own parent has no schemas, the walk goes on up
	nested := filepath.Join(t.TempDir(), "mod")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(nested)
	if _, err := schemaDir(); err == nil || !strings.Contains(err.Error(), "shared") {
		t.Errorf("from %s: %v, want an error naming the missing folder", nested, err)
	}
}

// TestMain reports what was not tested for want of a service (xmllint and
// the schemas here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestSchemaDirOfficialOnly: a folder of the official schemas alone, as a
// clone's owner gathers them (docs/development.md), validates: the wrapper
// schema and the catalog are this package's.
func TestSchemaDirOfficialOnly(t *testing.T) {
	t.Setenv("SITEMAP_XSD_DIR", "")
	full, err := schemaDir()
	if err != nil {
		testenv.Unavailable(t, Group, err.Error())
	}
	dir := t.TempDir()
	for _, f := range official {
		b, err := os.ReadFile(filepath.Join(full, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := checkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got == dir {
		t.Fatalf("the folder %s has no wrapper, yet it is used as it is", dir)
	}
	os.Remove(filepath.Join(dir, "sitemap-news.xsd"))
	if _, err := checkDir(dir); err == nil || !strings.Contains(err.Error(), "SITEMAP_XSD_DIR") {
		t.Errorf("a folder without sitemap-news.xsd: %v, want an error that says how to point at one", err)
	}
	if _, err := exec.LookPath("xmllint"); err != nil {
		testenv.Unavailable(t, Group, "xmllint not found on PATH (install libxml2-utils)")
	}
	cmd := exec.Command("xmllint", "--nonet", "--noout", "--schema", filepath.Join(got, "urlset-all.xsd"), "-")
	cmd.Env = append(os.Environ(), "XML_CATALOG_FILES="+filepath.Join(got, "catalog.xml"))
	cmd.Stdin = strings.NewReader(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://example.com/a</loc><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/a"/></url></urlset>`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("a urlset against the wrapped folder: %v\n%s", err, out)
	}
}
