package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tempPattern names the temporary files: hidden, so a sync of the
// directory that skips dot files never uploads one.
const tempPattern = ".sitemap-export-*.tmp"

// writeAtomic writes what r holds to dir/name: to a temporary file in dir,
// synced and closed, then renamed over name. On any error the temporary
// file is removed and name is untouched. It returns the bytes written.
func writeAtomic(dir, name string, r io.Reader) (int64, error) {
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644) // CreateTemp makes it 0600
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return 0, err
	}
	return n, nil
}

// manifest maps each file's name to what the last run knew of it. The
// zero manifest is empty.
type manifest struct {
	Files map[string]fileState `json:"files"`
}

// fileState is one file's entry in the manifest.
type fileState struct {
	ETag string `json:"etag"`
	URL  string `json:"url"` // where it was fetched from
}

// readManifest reads dir's manifest. A missing or unreadable one is empty:
// every file is then fetched again.
func readManifest(dir string) manifest {
	m := manifest{Files: map[string]fileState{}}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil || json.Unmarshal(b, &m) != nil || m.Files == nil {
		return manifest{Files: map[string]fileState{}}
	}
	return m
}

// write writes the manifest to dir atomically.
func (m manifest) write(dir string) error {
	b, err := json.MarshalIndent(m, "", "\t")
	if err != nil {
		return err
	}
	if _, err := writeAtomic(dir, ManifestName, bytes.NewReader(append(b, '\n'))); err != nil {
		return fmt.Errorf("sitemap: export manifest: %w", err)
	}
	return nil
}

// exists reports whether dir/name is a regular file.
func exists(dir, name string) bool {
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.Mode().IsRegular()
}
