package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type failAfter struct{ n int }

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("boom")
	}
	f.n--
	p[0] = 'x'
	return 1, nil
}

// TestWriteAtomic: a failed write leaves the old file and no temporary
// file; a good one replaces it, readable by all.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeAtomic(dir, "f", &failAfter{n: 10}); err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "old" {
		t.Errorf("f = %q after a failed write", b)
	}
	if n, err := writeAtomic(dir, "f", strings.NewReader("new")); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "f"))
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "new" || fi.Mode().Perm() != 0o644 {
		t.Errorf("f = %q, %v", b, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries, want 1", len(ents))
	}
}

// TestManifest: written and read back; a corrupt one reads as empty.
func TestManifest(t *testing.T) {
	dir := t.TempDir()
	m := manifest{Files: map[string]fileState{"a.xml.gz": {ETag: `"1"`, URL: "https://example.com/a.xml.gz"}}}
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
	if got := readManifest(dir); got.Files["a.xml.gz"] != m.Files["a.xml.gz"] {
		t.Errorf("read back %+v", got)
	}
	os.WriteFile(filepath.Join(dir, ManifestName), []byte("{"), 0o644)
	if got := readManifest(dir); len(got.Files) != 0 {
		t.Errorf("corrupt manifest read as %+v", got)
	}
}

func TestSafeName(t *testing.T) {
	for name, want := range map[string]bool{
		"sitemap-a-1.xml.gz": true, "sitemap_index-2.xml": true,
		"": false, ".": false, "..": false, ".sitemap-export.json": false, "a%2Fb": false, "a b": false,
	} {
		if got := safeName(name); got != want {
			t.Errorf("safeName(%q) = %v", name, got)
		}
	}
}
