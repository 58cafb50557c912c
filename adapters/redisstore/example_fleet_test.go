package redisstore_test

import (
	"log"
	"net/http"
	"os"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/redis/go-redis/v9"
)

// Each replica of a fleet runs this with the same Redis, BaseURL, sections
// and TTL: each file is then built once for all of them, under a lock in
// Redis, every replica serves the stored copy with the same ETag and
// Last-Modified, and Invalidate on one reaches all. For a Redis Cluster,
// give redis.NewClusterClient's client instead; the keys of one file share
// a slot and the files spread over the shards.
func Example_fleet() {
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR"), ContextTimeoutEnabled: true})
	defer client.Close() // after sm.Close, deferred below
	st, err := redisstore.New(client, redisstore.Options{Prefix: "shop:"})
	if err != nil {
		log.Fatal(err)
	}
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://shop.example.com/"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", Store: st},
		sitemap.Section{Name: "pages", Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	log.Fatal(http.ListenAndServe(":8080", sm.Handler(http.NotFoundHandler())))
}
