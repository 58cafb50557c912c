// Package xsdcheck validates sitemap documents in tests against the official
// XML Schemas, with xmllint and no network.
//
// The schemas are read from $SITEMAP_XSD_DIR, or else from ../shared/xsd
// next to the directory that holds the module's go.mod. That folder holds
// the official schemas (see official); the wrapper schema that joins them
// and the catalog that keeps xmllint off the network are this package's
// (wrap/), used when the folder has none of its own. When xmllint or the
// schemas are missing, the document is not validated and the rest of the
// calling test goes on (see testenv.Without), unless
// SITEMAP_REQUIRE_SERVICES=1 (set by CI), which makes the test fail.
package xsdcheck

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/freshmap/sitemap/internal/testenv"
)

// Group names schema validation in testenv's reports.
const Group = "schema validation (xmllint)"

// URLSet validates doc, an uncompressed <urlset> document, against
// urlset-all.xsd (the sitemap schema with the image, video, news and xhtml
// extensions). A validation failure is reported with t.Errorf.
func URLSet(t testing.TB, doc []byte) {
	t.Helper()
	validate(t, "urlset-all.xsd", doc)
}

// Index validates doc, an uncompressed <sitemapindex> document, against
// siteindex.xsd.
func Index(t testing.TB, doc []byte) {
	t.Helper()
	validate(t, "siteindex.xsd", doc)
}

// Available reports whether documents can be validated: xmllint is on the
// PATH and the schema folder was found.
func Available() bool {
	_, err := setup()
	return err == nil
}

type tool struct {
	xmllint string // path of the xmllint binary
	dir     string // absolute path of the schema folder
}

var setup = sync.OnceValues(func() (tool, error) {
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		return tool{}, errors.New("xmllint not found on PATH (install libxml2-utils)")
	}
	dir, err := schemaDir()
	if err != nil {
		return tool{}, err
	}
	return tool{xmllint: bin, dir: dir}, nil
})

// schemaDir finds the schema folder: $SITEMAP_XSD_DIR, or else ../shared/xsd
// relative to the nearest directory at or above the working directory that
// holds a go.mod (or, for a nested module, the next one up that has it).
func schemaDir() (string, error) {
	if dir := os.Getenv("SITEMAP_XSD_DIR"); dir != "" {
		return checkDir(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	var first error
	for {
		if _, err := os.Stat(filepath.Join(wd, "go.mod")); err == nil {
			dir, err := checkDir(filepath.Join(wd, "..", "shared", "xsd"))
			if err == nil {
				return dir, nil
			}
			if first == nil {
				first = err
			}
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			if first == nil {
				first = errors.New("no go.mod found above the working directory, so no schema folder; " + howToPoint)
			}
			return "", first
		}
		wd = parent
	}
}

// howToPoint says how to run the validation from a clone, which has no
// ../shared/xsd (docs/development.md).
const howToPoint = "set SITEMAP_XSD_DIR to a folder holding the official schemas " +
	"(sitemap.xsd, siteindex.xsd, sitemap-image.xsd, sitemap-video.xsd, sitemap-news.xsd, xhtml1-strict.xsd, xml.xsd: " +
	"where to get each is in docs/development.md)"

// official are the schemas a schema folder must hold: the sitemaps.org
// sitemap and index schemas, Google's image, video and news schemas, and
// the W3C's XHTML 1.0 Strict (for hreflang links) with the xml: namespace
// schema it imports. They are not this project's writing, so the
// repository does not hold them.
var official = [...]string{"sitemap.xsd", "siteindex.xsd", "sitemap-image.xsd", "sitemap-video.xsd",
	"sitemap-news.xsd", "xhtml1-strict.xsd", "xml.xsd"}

// The wrapper schema and the catalog, written for this project, which a
// schema folder may lack: wrapped adds them.
//
//go:embed wrap/urlset-all.xsd
var wrapperXSD []byte

//go:embed wrap/catalog.xml
var catalogXML []byte

// checkDir returns dir as an absolute path if it holds the official
// schemas, and the wrapper and the catalog; a folder that holds only the
// official schemas gets them (wrapped).
func checkDir(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, f := range official {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", errors.New("schema folder " + dir + " is incomplete: " + err.Error() + "; " + howToPoint)
		}
	}
	for _, f := range [...]string{"urlset-all.xsd", "catalog.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return wrapped(dir)
		}
	}
	return dir, nil
}

// wrapped returns a folder of links to the official schemas in dir, with
// this project's wrapper schema and catalog beside them (which resolve
// their names relative to their own folder), in the temporary directory.
func wrapped(dir string) (string, error) {
	h := fnv.New64a()
	h.Write([]byte(dir))
	w := filepath.Join(os.TempDir(), fmt.Sprintf("sitemap-xsd-%x", h.Sum64()))
	if err := os.MkdirAll(w, 0o755); err != nil {
		return "", err
	}
	for _, f := range official {
		link := filepath.Join(w, f)
		if target, err := os.Readlink(link); err == nil && target == filepath.Join(dir, f) {
			continue
		}
		os.Remove(link)
		if err := os.Symlink(filepath.Join(dir, f), link); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(w, "urlset-all.xsd"), wrapperXSD, 0o644); err != nil {
		return "", err
	}
	return w, os.WriteFile(filepath.Join(w, "catalog.xml"), catalogXML, 0o644)
}

func validate(t testing.TB, schema string, doc []byte) {
	t.Helper()
	tl, err := setup()
	if err != nil {
		testenv.Without(t, Group, err.Error())
		return
	}
	cmd := exec.Command(tl.xmllint, "--nonet", "--noout", "--schema", filepath.Join(tl.dir, schema), "-")
	cmd.Env = append(os.Environ(), "XML_CATALOG_FILES="+filepath.Join(tl.dir, "catalog.xml"))
	cmd.Stdin = bytes.NewReader(doc)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("xsdcheck: document does not validate against %s: %v\n%s", schema, err, out)
	}
}
