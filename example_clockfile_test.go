package sitemap_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap"
)

// With a ClockFile, a restart keeps the Last-Modified of every file whose
// bytes did not change, so a crawler's If-Modified-Since is still answered
// 304 after a deploy; without it (nor a Store, nor a Source that reports
// PageInfo.Changed), every file would look new. A fresh process gives no
// Last-Modified in its first two seconds (its floor): the example's clock
// is moved past it.
func ExampleConfig_clockFile() {
	dir, err := os.MkdirTemp("", "clocks")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var now atomic.Int64 // the example's clock, moved by hand
	now.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	cfg := sitemap.Config{
		BaseURL:   "https://example.com",
		ClockFile: filepath.Join(dir, "clocks"), // one file per Sitemap; its directory must exist
		Now:       func() time.Time { return time.Unix(0, now.Load()).UTC() },
	}
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)
	get := func(h http.Handler, ims string) *httptest.ResponseRecorder {
		w, r := httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil)
		if ims != "" {
			r.Header.Set("If-Modified-Since", ims)
		}
		h.ServeHTTP(w, r)
		return w
	}

	sm, err := sitemap.New(cfg, sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	now.Add(int64(3 * time.Second)) // past the floor
	lm := get(sm, "").Header().Get("Last-Modified")
	fmt.Println("first process:", lm)
	sm.Close()

	now.Add(int64(time.Hour)) // a deploy, an hour later
	sm, err = sitemap.New(cfg, sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fmt.Println("after the restart:", get(sm, "").Header().Get("Last-Modified"))
	fmt.Println("If-Modified-Since it:", get(sm, lm).Code)
	// Output:
	// first process: Sun, 01 Mar 2026 12:00:02 GMT
	// after the restart: Sun, 01 Mar 2026 12:00:02 GMT
	// If-Modified-Since it: 304
}
