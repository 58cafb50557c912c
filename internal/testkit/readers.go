package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
)

// Readers checks that the readers crawlers and tools use decode gz, a
// gzip file, to xml, a <urlset> of urls <url> elements: Go's
// compress/gzip; Python's gzip and zlib (fed 4 KiB at a time, the stream
// ending where the file ends); Node's zlib (whole and streamed); curl
// --compressed; libxml2's xmllint reading the .gz itself; and headless
// Chromium fetching the .xml with gzip content encoding, whose DOM must
// hold each of locs. A reader not installed is testenv.Unavailable: a
// skip, or a failure where services are required (CI installs them).
func Readers(t *testing.T, gz, xml []byte, urls int, locs ...string) {
	t.Helper()
	want := sum(xml)
	if got := sum(Gunzip(t, gz)); got != want {
		t.Fatal("Go's compress/gzip reads other bytes")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "sitemap-1.xml.gz")
	if err := os.WriteFile(file, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz)
	}))
	defer srv.Close()

	t.Run("python", func(t *testing.T) {
		py := tool(t, "python3", "python3")
		script := `import gzip, hashlib, sys, zlib
data = open(sys.argv[1], "rb").read()
whole = gzip.decompress(data)
d = zlib.decompressobj(31)
parts = [d.decompress(data[i:i + 4096]) for i in range(0, len(data), 4096)]
parts.append(d.flush())
assert d.eof and not d.unused_data, "stream not ended where the file ends"
print(hashlib.sha256(whole).hexdigest(), hashlib.sha256(b"".join(parts)).hexdigest())`
		if got := run(t, py, "-c", script, file); got != want+" "+want {
			t.Errorf("python: %s, want %s twice", got, want)
		}
	})
	t.Run("node", func(t *testing.T) {
		node := tool(t, "node", "nodejs")
		script := `const fs = require("fs"), zlib = require("zlib"), crypto = require("crypto");
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
const whole = sha(zlib.gunzipSync(fs.readFileSync(process.argv[1])));
const parts = [];
fs.createReadStream(process.argv[1], { highWaterMark: 4096 }).pipe(zlib.createGunzip())
  .on("data", (c) => parts.push(c))
  .on("end", () => console.log(whole, sha(Buffer.concat(parts))))
  .on("error", (e) => { console.error(e); process.exit(1); });`
		if got := run(t, node, "-e", script, file); got != want+" "+want {
			t.Errorf("node: %s, want %s twice", got, want)
		}
	})
	t.Run("curl", func(t *testing.T) {
		curl := tool(t, "curl", "curl")
		out := filepath.Join(dir, "curl.xml")
		run(t, curl, "--silent", "--show-error", "--fail", "--compressed", "-o", out, srv.URL+"/sitemap-1.xml")
		if got, _ := os.ReadFile(out); sum(got) != want {
			t.Errorf("curl --compressed: %d bytes, not the file's", len(got))
		}
	})
	t.Run("xmllint", func(t *testing.T) {
		xl := tool(t, "xmllint", "libxml2-utils")
		got := run(t, xl, "--xpath", "count(//*[local-name()='url'])", file)
		if got != strconv.Itoa(urls) {
			t.Errorf("xmllint counts %s <url> elements in the .gz, want %d", got, urls)
		}
	})
	t.Run("chromium", func(t *testing.T) {
		bin := tool(t, "chromium", "chromium")
		dom := run(t, bin, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", srv.URL+"/sitemap-1.xml")
		for _, loc := range locs {
			if !strings.Contains(dom, loc) {
				t.Errorf("chromium's DOM lacks %s (%d bytes of DOM)", loc, len(dom))
			}
		}
	})
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// tool returns the path of a program the test needs, or stops the test
// (a failure when services are required, as in CI, which installs them).
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testenv.Unavailable(t, name, name+" not found on PATH (apt-get install "+pkg+")")
	}
	return p
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(name), err, out)
	}
	return strings.TrimSpace(string(out))
}
