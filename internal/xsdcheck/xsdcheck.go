// Package xsdcheck validates sitemap documents in tests against the official
// XML Schemas, with xmllint and no network.
//
// The schemas are read from $SITEMAP_XSD_DIR, or else from ../shared/xsd
// next to the directory that holds the module's go.mod. When xmllint or the
// schemas are missing, the document is not validated and the rest of the
// calling test goes on (see testenv.Without), unless
// SITEMAP_REQUIRE_SERVICES=1 (set by CI), which makes the test fail.
package xsdcheck

import (
	"bytes"
	"errors"
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
				first = errors.New("no go.mod found above the working directory, so no schema folder (set SITEMAP_XSD_DIR)")
			}
			return "", first
		}
		wd = parent
	}
}

// checkDir returns dir as an absolute path if it holds the schemas.
func checkDir(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, f := range [...]string{"urlset-all.xsd", "siteindex.xsd", "catalog.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", errors.New("schema folder " + dir + " is incomplete: " + err.Error() + " (set SITEMAP_XSD_DIR)")
		}
	}
	return dir, nil
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
