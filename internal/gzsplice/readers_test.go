package gzsplice

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
)

// splicedSitemap is a <urlset> of 6,000 URLs kept as segments (the XML
// declaration and opening tag, runs of 1,000 URLs, the closing tag), with
// one run compressed again after a change and spliced in: the file that
// real readers must take as they take any gzip file.
func splicedSitemap(t *testing.T) (gz, xml []byte) {
	r := rand.New(rand.NewPCG(11, 12))
	url := func(i int) []byte {
		return fmt.Appendf(nil, "<url><loc>https://shop.example.com/p/%d?v=%x&amp;c=1</loc><lastmod>2026-11-%02d</lastmod></url>\n", i, r.Uint32(), 1+r.IntN(28))
	}
	runs := [][]byte{[]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")}
	for s := range 6 {
		var b []byte
		for i := range 1000 {
			b = append(b, url(s*1000+i)...)
		}
		runs = append(runs, b)
	}
	runs = append(runs, []byte("</urlset>\n"))
	segs := segmentsOf(t, runs, 6)
	runs[3] = append(url(999999), runs[3][len(url(0)):]...) // a change inside one run
	segs[3], _ = NewSegment(runs[3], 6)
	return Join(nil, segs), bytes.Join(runs, nil)
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

// TestReaders: a spliced file is decoded to the same bytes by the readers
// that crawlers and tools use: Python's gzip and zlib (fed 4 KiB at a
// time), Node's zlib (whole and streamed), curl --compressed, libxml2's
// xmllint reading the .gz itself, and headless Chromium fetching the .xml
// with gzip content encoding.
func TestReaders(t *testing.T) {
	gz, xml := splicedSitemap(t)
	want := sum(xml)
	if got := sum(gunzip(t, gz)); got != want {
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
		if got != "6000" {
			t.Errorf("xmllint counts %s <url> elements in the .gz, want 6000", got)
		}
	})
	t.Run("chromium", func(t *testing.T) {
		bin := tool(t, "chromium", "chromium")
		dom := run(t, bin, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", srv.URL+"/sitemap-1.xml")
		for _, loc := range []string{"https://shop.example.com/p/999999", "https://shop.example.com/p/5999"} {
			if !strings.Contains(dom, loc) {
				t.Errorf("chromium's DOM lacks %s (%d bytes of DOM)", loc, len(dom))
			}
		}
	})
}
