// Package sqlsource is a [sitemap.Source] over a database/sql table, for
// catalogues of any size. It works with any driver and has been tested on
// SQLite (modernc.org/sqlite), PostgreSQL (pgx) and MariaDB/MySQL
// (go-sql-driver/mysql).
//
// # Usage
//
//	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
//	if err != nil {
//		log.Fatal(err)
//	}
//	src, err := sqlsource.New(db, sqlsource.Config{
//		Table:       "products",
//		Key:         "id", // a unique integer column with an index, usually the primary key
//		BaseURL:     "https://shop.example.com",
//		LocTemplate: "/p/{slug}", // a path, since BaseURL is set
//		LastMod:     "updated_at",
//		Filter:      "published AND NOT noindex",
//		Loaders: []sqlsource.Loader{sqlsource.Images(`SELECT product_id, path FROM product_images
//			WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`)},
//	})
//	if err != nil {
//		log.Fatal(err) // a configuration mistake
//	}
//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"},
//		sitemap.Section{Name: "products", Source: src}) // PageSize comes from src
//
// # Pages
//
// Pages are key ranges, never offsets: with the default page size of
// 50,000 and KeyStart 0, page 1 holds the rows with keys 0 to 49,999, page 2
// those with keys 50,000 to 99,999, and so on. Reading page n is one index
// range scan (WHERE key >= lo AND key <= hi ORDER BY key) that costs the
// same whatever n is. A row stays on its page for life: inserting, updating
// or deleting a row changes only the page its key falls in, so a crawler
// refetches one file. A page may hold fewer URLs than the page size (keys
// have gaps, and the filter drops rows); a page with none is not listed.
// [Source.PageOf] names the page of a key, so that after an update the
// application can tell the Sitemap which file changed:
//
//	sm.Invalidate("products", src.PageOf(productID))
//
// [Source.Pages] lists the pages with one aggregate query per page over
// the key index: the row count, and the newest lastmod, which becomes the
// page's lastmod in the sitemap index. [sitemap.PageInfo]'s Version is
// made of the count, the sum of the keys' offsets within the page and the
// newest lastmod, so it changes when rows are inserted, deleted, filtered
// in or out, or updated with a newer lastmod. An update that changes a URL
// but not its lastmod is not seen until the page is rebuilt for another
// reason: keep lastmod current, or call Invalidate with PageOf.
//
// Each page is also cut into fixed segments of [Config].SegmentSize keys
// (a twentieth of a page by default), which [Source.SegmentURLs] reads
// apart, so that a Sitemap told the keys of changed rows re-reads only
// their segments; a page's segments in turn are exactly its URLs.
//
// # Page summary
//
// Pages costs one aggregate per page, which adds up at millions of rows
// (about 1.5 s at 10,000,000). [Source.InstallSummary] installs a summary
// instead: a table <table>_sitemap_pages with a row per page, and a
// change table that triggers on the table fill with one small INSERT per
// row written (its key, whether it was deleted, the time), which is all
// a write pays. [Source.Watch] reads the change table, keeps the summary
// (and the row times) from it in batches, and prunes what it applied in
// the same transaction. A
// Source made with [Config].Summary set lists its pages by reading one
// summary row per page, and the pages the change table names:
//
//	cfg.Summary = true
//	src, err := sqlsource.New(db, cfg)
//	...
//	err = src.InstallSummary(ctx) // at every start: a migration, a no-op once installed
//
// A page's lastmod in the index, and its clock after a restart, is the
// time it last changed (its newest lastmod until the first change).
// [Source.PageInfo] reads one page's summary row (a
// [sitemap.PageReporter]): a page rebuilt on Watch's Invalidate looks at
// it before and after reading its rows, and so takes the clock a restart
// gives it.
//
// # Changes pushed by the database
//
// [Source.Watch] tells the Sitemap of each page written, with no call of
// the application's:
//
//	w, err := src.Watch(ctx, sm, "products") // sm is the *sitemap.Sitemap
//	...
//	defer w.Close()
//
// Every [Config].WatchInterval it reads the change table, applies what
// it found, invalidates the pages those changes are on (at most once per
// interval, every page changed since) and only then deletes the changes
// it applied, so none is lost to a crash or a cut connection. With a
// Store, the Sitemap tells the other replicas: one Watch per fleet is
// enough. With [Config].Significant, an UPDATE that changes none of the
// columns it names records no change, and so neither rebuilds nor is
// told; with [Config].LastMod too, each URL's lastmod is the time of its
// row's last significant change, so such an UPDATE moves no lastmod
// either. Given a Sitemap that has InvalidateKeys, Watch tells it the
// keys of the rows changed instead of their pages, and acknowledges the
// changes only after that call.
//
// # Choosing the change capture
//
// [Config].Capture says how Watch learns of the rows written. Both ways
// deliver every committed change at least once, and forget it only once
// Watch has applied it, so a crash, a cut connection or a deploy loses
// none.
//
// [CaptureChangeTable], the default, works on every database: triggers
// add one small row per row written to <table>_sitemap_changes, which
// Watch reads and prunes. A write pays that INSERT, in its own
// transaction. Grants: to install, CREATE on the schema and the right to
// make triggers on the table (PostgreSQL: its owner; MySQL/MariaDB:
// TRIGGER, and SUPER or log_bin_trust_function_creators with binary
// logging); to serve and watch, SELECT on the table, and SELECT, INSERT,
// UPDATE and DELETE on the tables the summary made.
//
// [CaptureLogical] is PostgreSQL's logical decoding: Watch reads the
// table's changes from a replication slot through the pgoutput plugin
// (as Debezium does), and a write pays nothing for it, no trigger and no
// row. It needs wal_level = logical on the server (ALTER SYSTEM SET
// wal_level = logical, then a restart), the pgx driver
// (github.com/jackc/pgx/v5/stdlib), and a role with the REPLICATION
// attribute (on Amazon RDS and Aurora, the rds_replication role). The
// first Watch makes a publication of the table and a slot, named by
// [Config].Slot and [Config].Publication (by default "sqlsource_" and the
// table's name), which needs CREATE on the database and ownership of the
// table (with Significant columns, it also makes the table's REPLICA
// IDENTITY FULL, so that an UPDATE carries the old row to compare). An
// administrator can make both beforehand; then the role needs only
// REPLICATION and SELECT. The replicas of a fleet share the slot: one
// reads it at a time, and the others try every half second, so one takes
// over soon after the reader stops. A new slot, a TRUNCATE, or a transaction of more than 100,000
// rows cannot say which rows changed: Watch then counts every page again,
// in one pass over the key index, twenty pages a statement, before it
// goes on. A new process's Pages waits until its Watcher has applied the
// changes committed before it started, so its first clocks know of them.
// RemoveSummary drops the slot and the publication.
//
// What a slot costs while no one reads it: the server keeps every WAL
// segment from the position the slot last confirmed, for every table of
// the server, until a reader confirms past it. With every replica
// stopped for a day, that is a day of the whole server's WAL on its disk.
// Set max_slot_wal_keep_size to bound it: past that size the server
// removes the WAL anyway and the slot is lost, and the next Watch makes
// it anew and counts every page again. [Source.WatchStats] reports the
// lag (LagBytes, RetainedBytes, the age of the oldest change not applied
// and the slot's WALStatus), and adapters/promsitemap's NewChangeLag
// exports it; drop a slot no longer wanted with RemoveSummary, or
//
//	SELECT pg_drop_replication_slot('sqlsource_products');
//	DROP PUBLICATION sqlsource_products;
//
// [CaptureAuto] takes logical decoding where the server and the role
// allow it, and the change table elsewhere, and logs its choice (and
// WatchStats reports it). Run InstallSummary at every start: it brings
// the installation to the capture chosen (the triggers made or dropped;
// a change of capture counts every page again).
//
// # Recent URLs
//
// With [Config].LastMod set, [Source.Recent] lists the most recently
// changed rows for a sitemap's Atom feed (sitemap.Config.FeedEntries) with
// one query, ORDER BY lastmod DESC, key DESC LIMIT n, which needs an index
// on the lastmod column, ideally with the key, so that the database reads
// n index entries instead of sorting the table:
//
//	CREATE INDEX products_recent ON products (updated_at, id);
//
// With a selective Filter, put its columns first, such as
// (published, updated_at, id) for "published". Without Config.LastMod,
// Recent yields an error (a feed needs its entries' times).
//
// # Extensions
//
// Images, hreflang alternates and other per-URL data kept in other tables
// are read by [Loader]s, each with one query per page over the page's key
// range ([Images] and [Alternates] are ready-made), and merged into the URLs
// as they stream. Memory is bounded by one page. [ImagesFrom] reads the
// images of a table named by its columns with fewer values crossing the
// driver than Images, which on SQLite (modernc.org/sqlite) costs less.
//
// Data in the row's own columns, such as a news article's title, language
// and publication date, or a changefreq or priority, needs no other query:
// name the columns in [Config].Columns and fill the URL in
// [Config].Annotate, reading them with [Row.String] and [Row.Time]:
//
//	Columns: []string{"title", "lang", "published_at"},
//	Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
//		published, err := r.Time("published_at")
//		u.News = &sitemap.News{PublicationName: "The Daily", Language: r.String("lang"),
//			PublicationDate: published, Title: r.String("title")}
//		return err
//	},
//
// Tables may store paths rather than absolute URLs: with [Config].BaseURL
// set, every loc, image loc and license and alternate href that starts
// with "/" is appended to it.
//
// # Times
//
// Lastmod values are read from timestamp and date columns of every
// database, from text in the SQLite date formats and from integer Unix
// seconds (see [Config].LastMod), converted to UTC and truncated to the
// second, so one catalogue gives the same URLs, and the same sitemap bytes,
// from every database.
//
// A PostgreSQL timestamp without time zone, a MySQL DATETIME and SQLite text
// without a zone are taken to be UTC. MySQL converts TIMESTAMP columns to
// the session's time zone, which the driver reads in its loc parameter
// (UTC by default): keep the two the same, such as time_zone='+00:00'.
// The driver's parseTime is not needed: text times are parsed here.
package sqlsource
