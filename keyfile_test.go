package sitemap

import (
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/indexnow"
)

// The key file is served at the base path, by the middleware and by the
// bare handler; any other .txt of that length goes to the application.
func TestKeyFile(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	sm := newTestSitemap(t, Config{BaseURL: inBase, IndexNow: &IndexNow{Key: testKey, Endpoints: []string{ep.url()}}},
		Section{Source: newFake(1, 1)})
	var seen []string
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		http.NotFound(w, r)
	})
	h := sm.Handler(app)
	path := "/shop/" + testKey + ".txt"
	for name, srv := range map[string]http.Handler{"middleware": h, "handler": sm} {
		w := get(srv, path)
		etag := w.Header().Get("Etag")
		if w.Code != 200 || w.Body.String() != testKey || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" ||
			!strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
			t.Errorf("%s: GET %d %q %v", name, w.Code, w.Body.String(), w.Header())
		}
		if w := do(srv, http.MethodHead, path); w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Etag") != etag {
			t.Errorf("%s: HEAD %d %q", name, w.Code, w.Body.String())
		}
		if w := get(srv, path, "If-None-Match", etag); w.Code != http.StatusNotModified {
			t.Errorf("%s: If-None-Match: %d", name, w.Code)
		}
		if w := do(srv, http.MethodPost, path); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: POST %d", name, w.Code)
		}
	}
	if len(seen) != 0 {
		t.Errorf("the application saw %q", seen)
	}
	for _, p := range []string{"/shop/" + strings.ToUpper(testKey) + ".txt", "/shop/b1b2C3d4-e5f6.txt", "/" + testKey + ".txt", "/shop/" + testKey + ".txtx"} {
		seen = nil
		if w := get(h, p); w.Code != 404 || len(seen) != 1 {
			t.Errorf("%s: %d, application saw %q", p, w.Code, seen)
		}
	}
	// Without IndexNow, no key file.
	off := newTestSitemap(t, Config{BaseURL: inBase}, Section{Source: newFake(1, 1)})
	if w := get(off, path); w.Code != 404 {
		t.Errorf("without IndexNow: %d", w.Code)
	}
	off.Notify(inBase + "p/1") // does nothing
}

// Notify sends through the Sitemap's sender, counted in Stats, and Close
// leaves no goroutine behind.
func TestNotify(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: inBase, IndexNow: &IndexNow{Key: testKey, Endpoints: []string{ep.url(), ep.url() + "?two"}, Delay: time.Millisecond}},
		Section{Source: newFake(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	sm.Notify(inBase+"p/1", inBase+"p/2", "https://other.example/")
	waitFor(t, func() bool { return sm.Stats().IndexNowSent == 4 })
	sm.Notify(inBase + "p/3") // queued for the delay; Close sends it
	sm.Close()
	st := sm.Stats()
	if st.IndexNowSent != 6 || st.IndexNowRefused != 1 || st.IndexNowDropped != 0 || st.IndexNowFailed != 0 {
		t.Errorf("stats %+v", st)
	}
	waitGoroutines(t, before)
	sm.Close() // again: nothing to do
}

func TestIndexNowConfig(t *testing.T) {
	for name, in := range map[string]IndexNow{
		"short key":         {Key: "abc1234"},
		"long key":          {Key: strings.Repeat("k", 129)},
		"underscore":        {Key: "abcd_efgh"},
		"space":             {Key: "abcd efgh"},
		"non-ASCII":         {Key: "abcdéfgh"},
		"sitemap name":      {Key: "sitemap-1"},
		"relative endpoint": {Key: testKey, Endpoints: []string{"/indexnow"}},
		"no scheme":         {Key: testKey, Endpoints: []string{"api.indexnow.org/indexnow"}},
		"ftp endpoint":      {Key: testKey, Endpoints: []string{"ftp://api.indexnow.org/indexnow"}},
		"endpoint twice":    {Key: testKey, Endpoints: []string{"https://a.example/i", "https://a.example/i"}},
		"negative queue":    {Key: testKey, QueueSize: -1},
		"negative backoff":  {Key: testKey, MaxBackoff: -time.Second},
	} {
		_, err := New(Config{BaseURL: inBase, IndexNow: &in}, Section{Source: newFake(1, 1)})
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
	for _, key := range []string{"abcd1234", strings.Repeat("Z-9", 42) + "ab", "sitemap1"} {
		sm, err := New(Config{BaseURL: inBase, IndexNow: &IndexNow{Key: key}}, Section{Source: newFake(1, 1)})
		if err != nil {
			t.Errorf("key %q: %v", key, err)
			continue
		}
		if sm.rep.indexNow.Endpoints()[0] != indexnow.DefaultEndpoint {
			t.Errorf("default endpoint %q", sm.rep.indexNow.Endpoints()[0])
		}
		sm.Close() // nothing queued: nothing is sent
	}
}
