package demo

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
)

// Options are the examples' command-line flags. A Wiring uses Base,
// PageSize and IndexNow; Main opens the Store.
type Options struct {
	Addr     string        // -addr: where to listen
	Base     string        // -base: the site's base URL, the start of every URL in the sitemap
	DB       string        // -db: the catalogue file
	Products int           // -products: the catalogue's size
	PageSize int           // -pagesize: products per sitemap file
	Verbose  bool          // -v: debug logging, one line per sitemap file built
	Crawl    bool          // -crawl: fetch the whole sitemap once, report, and exit
	Redis    string        // -redis: the Redis address of a cache shared by replicas; "" for none
	Churn    time.Duration // -churn: how often Churn edits the catalogue while serving; 0 for never

	IndexNowEndpoint string // -indexnow: an IndexNow endpoint to push changes to; "" for none
	IndexNowKey      string // -indexnow-key: the key it knows the site by
}

// IndexNow is the sitemap's IndexNow setting from -indexnow and
// -indexnow-key: nil (off) unless an endpoint was given. The demo pushes
// to the endpoint named only, such as a local test server: never to the
// shared public one by default.
func (o Options) IndexNow() *sitemap.IndexNow {
	if o.IndexNowEndpoint == "" {
		return nil
	}
	return &sitemap.IndexNow{Key: o.IndexNowKey, Endpoints: []string{o.IndexNowEndpoint}}
}

// Store returns the sitemap's Store from -redis, and a function that
// closes it, to call after the Sitemap is closed. Without -redis the
// Store is nil: each replica caches alone. With it, it is a
// redisstore.Store on a new client of that Redis. Redis is not contacted
// here: while it is down or unreachable, the Sitemap serves alone, from
// its own cache and Source.
func (o Options) Store() (sitemap.Store, func(), error) {
	if o.Redis == "" {
		return nil, func() {}, nil
	}
	client := redis.NewClient(&redis.Options{
		Addr:                  o.Redis,
		ContextTimeoutEnabled: true, // so that the Store's timeout bounds every call
	})
	rs, err := redisstore.New(client, redisstore.Options{})
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	return rs, func() { client.Close() }, nil
}

// parseFlags parses the command-line arguments args (without the program
// name). A bad flag or -h exits the program, as the flag package does.
func parseFlags(args []string) Options {
	var o Options
	fs := flag.NewFlagSet(filepath.Base(os.Args[0]), flag.ExitOnError)
	fs.StringVar(&o.Addr, "addr", ":8080", "address to listen on")
	fs.StringVar(&o.Base, "base", "", "base URL of the site, as crawlers see it (default: http://localhost and the -addr port)")
	fs.StringVar(&o.DB, "db", "", "catalogue file, created on first run (default: in the user's cache directory)")
	fs.IntVar(&o.Products, "products", 200_000, "number of products in a new catalogue")
	fs.IntVar(&o.PageSize, "pagesize", 10_000, "products per sitemap file (at most 16666: each is written in 3 languages, and a file holds at most 50000 URLs)")
	fs.BoolVar(&o.Verbose, "v", false, "log at debug level: one line per sitemap file built")
	fs.StringVar(&o.IndexNowEndpoint, "indexnow", "", "IndexNow endpoint to push changed URLs to, such as http://127.0.0.1:9000/indexnow (default: off)")
	fs.StringVar(&o.IndexNowKey, "indexnow-key", "freshmap-demo-key", "IndexNow key, served at the base URL as KEY.txt")
	fs.StringVar(&o.Redis, "redis", "", "Redis address, such as 127.0.0.1:6379, for a cache shared by several replicas of the demo (default: off)")
	fs.DurationVar(&o.Churn, "churn", 0, "edit the catalogue every interval while serving, such as 2s: rename, add or unpublish a product, or publish an article, and print how soon the sitemap served the new bytes (default: off)")
	fs.BoolVar(&o.Crawl, "crawl", false, "serve on a loopback port, fetch robots.txt, the index and every sitemap file once, print figures and exit")
	fs.Parse(args) // ExitOnError: never returns an error
	if o.DB == "" {
		o.DB = DefaultPath(o.Products)
	}
	if o.Base == "" {
		o.Base = baseFor(o.Addr)
	}
	return o
}

// baseFor returns the base URL of a server listening on addr, such as
// "http://localhost:8080" for ":8080".
func baseFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// logger returns a text logger to stderr, at debug level with -v.
func (o Options) logger() *slog.Logger {
	level := slog.LevelInfo
	if o.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// listen opens the listener the site is served on: o.Addr, or with -crawl
// a free loopback port, in which case o.Base becomes that port's URL so
// that the sitemap's URLs point at the server being crawled.
func listen(o *Options) (net.Listener, error) {
	if !o.Crawl {
		return net.Listen("tcp", o.Addr)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o.Base = fmt.Sprintf("http://%s", ln.Addr())
	return ln, nil
}
