package sitemap_test

import (
	"fmt"
	"log"
	"time"

	"github.com/freshmap/sitemap"
)

// The warm-up builds the index and every file it lists after New (and
// again after each InvalidateAll), so that the first crawler finds them
// cached.
func ExampleWarmUp() {
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}, {Loc: "https://example.com/about"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", WarmUp: &sitemap.WarmUp{Rate: 100}},
		sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	for deadline := time.Now().Add(10 * time.Second); sm.Stats().WarmedFiles < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // the index, then sitemap-1.xml.gz: 10 ms apart at 100 a second
	}
	fetch(sm, "/sitemap-1.xml.gz") // a crawler's first request
	st := sm.Stats()
	fmt.Println("warm-up passes:", st.WarmUps, "files built:", st.WarmedFiles)
	fmt.Println("the crawler's request: cache hits", st.CacheHits, "misses", st.CacheMisses)
	// Output:
	// warm-up passes: 1 files built: 2
	// the crawler's request: cache hits 1 misses 0
}
