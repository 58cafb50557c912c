package redisstore_test

import (
	"log"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/redis/go-redis/v9"
)

// A Store on one Redis server, with the default Options: keys under
// "sitemap:", values kept 7 days, locks of 10 seconds and calls bounded
// by 250 milliseconds. The Store is then set as the sitemap.Config's
// Store; see the package doc.
func Example() {
	client := redis.NewClient(&redis.Options{
		Addr:                  "127.0.0.1:6379",
		ContextTimeoutEnabled: true, // so that Options.Timeout bounds every call
	})
	defer client.Close() // the Store does not own the client
	st, err := redisstore.New(client, redisstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var _ sitemap.Store = st
}
