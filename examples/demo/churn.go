package demo

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// Churn edits the catalogue while the demo runs (-churn), as the shop's
// staff would: in turn it renames a product, adds one, unpublishes one
// and publishes a news article (unless NoArticles), each in one commit,
// and then asks the
// site, as a crawler would, for the sitemap file that lists the row until
// its bytes change, and reports how long that took after the commit. The
// wiring tells the sitemap nothing: the database's page summary and
// sqlsource's Watch carry the change.
type Churn struct {
	DB       *sql.DB
	Site     http.Handler  // the wired site: its sitemap files are fetched through it, in process
	PageSize int           // products per sitemap file (-pagesize)
	Wait     time.Duration // how long a Step waits for the new bytes; zero means churnWait
	// NoArticles leaves the articles alone, for a site with no news
	// section: the edits are then the three of the products.
	NoArticles bool
	rng        *rand.Rand
}

// Change is one edit of Churn and what the sitemap did with it.
type Change struct {
	What string        // such as "product 123 renamed"
	File string        // the sitemap file that lists the row, such as "/sitemap-products-1.xml.gz"
	Lag  time.Duration // from the commit to the first response with new bytes
	Seen bool          // the new bytes were served within Churn.Wait
}

// String is the line the demo prints.
func (c Change) String() string {
	if !c.Seen {
		return fmt.Sprintf("%s: %s unchanged after %v", c.What, c.File, c.Lag.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s: new bytes of %s served %v after the commit", c.What, c.File, c.Lag.Round(time.Millisecond))
}

// churnWait bounds how long a Step waits for the new bytes by default;
// churnPoll is how often it asks.
const (
	churnWait = 15 * time.Second
	churnPoll = 5 * time.Millisecond
)

// Run makes a change every interval, printing each to out, until ctx is
// done.
func (c *Churn) Run(ctx context.Context, every time.Duration, out io.Writer) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; ; i++ {
		ch, err := c.Step(ctx, i)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(out, ch)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Step makes change number i (a rename, an addition, an unpublication, an
// article, in turn; with NoArticles, the first three), commits it and
// waits for the sitemap file that lists the row to serve new bytes.
func (c *Churn) Step(ctx context.Context, i int) (Change, error) {
	if c.rng == nil {
		c.rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	}
	now := time.Now().Unix()
	var ch Change
	var id int64
	var write func() error
	kinds := 4
	if c.NoArticles {
		kinds = 3
	}
	switch i % kinds {
	case 0, 2:
		if err := c.DB.QueryRowContext(ctx, "SELECT id FROM products WHERE published AND id >= ? ORDER BY id LIMIT 1",
			1+c.rng.Int64N(c.maxID(ctx))).Scan(&id); err != nil {
			return ch, fmt.Errorf("demo: churn: %w", err)
		}
		if i%kinds == 0 {
			name := adjectives[c.rng.IntN(len(adjectives))] + " " + materials[c.rng.IntN(len(materials))] + " " + nouns[c.rng.IntN(len(nouns))]
			slug := strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "-" + strconv.FormatInt(id, 10)
			ch.What = fmt.Sprintf("product %d renamed %q", id, name)
			write = func() error {
				_, err := c.DB.ExecContext(ctx, "UPDATE products SET name = ?, slug = ?, updated_at = ? WHERE id = ?", name, slug, now, id)
				return err
			}
		} else {
			ch.What = fmt.Sprintf("product %d unpublished", id)
			write = func() error {
				_, err := c.DB.ExecContext(ctx, "UPDATE products SET published = 0, updated_at = ? WHERE id = ?", now, id)
				return err
			}
		}
	case 1:
		id = c.maxID(ctx) + 1
		name := "New " + materials[c.rng.IntN(len(materials))] + " " + nouns[c.rng.IntN(len(nouns))]
		ch.What = fmt.Sprintf("product %d added", id)
		write = func() error {
			tx, err := c.DB.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, "INSERT INTO products (id, slug, name, price_cents, updated_at, published) VALUES (?, ?, ?, ?, ?, 1)",
				id, strings.ToLower(strings.ReplaceAll(name, " ", "-")), name, 1990, now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO product_images VALUES (?, 1, ?, ?)", id, imagePath(id, 1), name+", "+views[0]); err != nil {
				return err
			}
			return tx.Commit()
		}
	case 3:
		mat := materials[c.rng.IntN(len(materials))]
		ch.What = "article published: " + mat + " is back"
		ch.File = "/sitemap-news-1.xml.gz" // always the same file: the newest articles
		write = func() error {
			_, err := c.DB.ExecContext(ctx, "INSERT OR IGNORE INTO articles (slug, title, lang, keywords, published_at) VALUES (?, ?, 'en', ?, ?)",
				strings.ToLower(mat)+"-is-back-"+strconv.FormatInt(now, 10), mat+" is back", strings.ToLower(mat)+", furniture", now)
			return err
		}
	}
	if ch.File == "" {
		ch.File = "/sitemap-products-" + strconv.FormatInt((id-1)/int64(c.PageSize)+1, 10) + ".xml.gz"
	}
	before := c.fetch(ch.File)
	if err := write(); err != nil {
		return ch, fmt.Errorf("demo: churn: %s: %w", ch.What, err)
	}
	committed := time.Now()
	wait := cmp.Or(c.Wait, churnWait)
	for ch.Lag < wait && ctx.Err() == nil {
		if now := c.fetch(ch.File); now != before {
			ch.Seen = true
			ch.Lag = time.Since(committed)
			break
		}
		time.Sleep(churnPoll)
		ch.Lag = time.Since(committed)
	}
	return ch, nil
}

// maxID returns the largest product id.
func (c *Churn) maxID(ctx context.Context) int64 {
	var n int64
	c.DB.QueryRowContext(ctx, "SELECT coalesce(max(id), 1) FROM products").Scan(&n)
	return max(n, 1)
}

// fetch asks the site for path (HEAD) and returns what names its bytes:
// the status and the ETag.
func (c *Churn) fetch(path string) string {
	w := httptest.NewRecorder()
	c.Site.ServeHTTP(w, httptest.NewRequest(http.MethodHead, path, nil))
	return strconv.Itoa(w.Code) + " " + w.Header().Get("Etag")
}
