package sitemap_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/freshmap/sitemap"
)

// IndexNow: the application names the URLs that changed; they are posted
// in the background, and Close sends what is still queued. A local
// endpoint stands in for https://api.indexnow.org/indexnow here.
func ExampleSitemap_Notify() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Printf("%s %s", r.Method, body)
	}))
	defer endpoint.Close()

	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/p/42"}}, 0)
	sm, err := sitemap.New(sitemap.Config{
		BaseURL:  "https://example.com",
		IndexNow: &sitemap.IndexNow{Key: "3f2a9c4e-5b7d", Endpoints: []string{endpoint.URL}}, // Endpoints: nil for the shared one
	}, sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	sm.Notify("https://example.com/p/42", "https://example.com/p/43", "https://example.com/p/42") // returns at once

	fmt.Print(fetch(sm, "/3f2a9c4e-5b7d.txt"), "\n") // the key file
	sm.Close()                                       // sends what is queued, for at most 10 s
	fmt.Println(sm.Stats().IndexNowSent, "sent")
	// Output:
	// 3f2a9c4e-5b7d
	// POST {"host":"example.com","key":"3f2a9c4e-5b7d","keyLocation":"https://example.com/3f2a9c4e-5b7d.txt","urlList":["https://example.com/p/42","https://example.com/p/43"]}
	// 2 sent
}
