package demo

import (
	"database/sql"
	"strings"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// Sections returns the two sitemap sections the catalogue's tables feed,
// the same for every router: products and news.
func Sections(db *sql.DB, opt Options) (products, news sitemap.Section, err error) {
	// Products: one file per PageSize ids, each read with one range query
	// plus one query each for images and alternates. The tables hold
	// paths, which BaseURL makes absolute.
	src, err := sqlsource.New(db, sqlsource.Config{
		Table:       "products",
		Key:         "id",
		KeyStart:    1,
		PageSize:    opt.PageSize,
		BaseURL:     opt.Base,
		LocTemplate: "/p/{id}/{slug}",
		LastMod:     "updated_at", // Unix seconds
		Filter:      "published",
		Loaders: []sqlsource.Loader{
			sqlsource.Images(`SELECT product_id, path, caption FROM product_images
				WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`),
			sqlsource.Alternates(`SELECT p.id, l.hreflang, l.prefix || '/p/' || p.id || '/' || p.slug
				FROM products p CROSS JOIN languages l WHERE p.id BETWEEN ? AND ? ORDER BY p.id, l.position`),
		},
	})
	if err != nil {
		return products, news, err
	}
	products = sitemap.Section{Name: "products", Source: src, PageSize: opt.PageSize, Extensions: sitemap.ExtImage | sitemap.ExtAlternates}

	// News: the articles of the last two days, at most 1,000 a file, with
	// their <news:news> filled from the same rows.
	src, err = sqlsource.New(db, sqlsource.Config{
		Table:       "articles",
		Key:         "id",
		KeyStart:    1,
		PageSize:    1000,
		BaseURL:     opt.Base,
		LocTemplate: "/news/{id}/{slug}",
		LastMod:     "published_at",
		Filter:      "published_at >= unixepoch('now', '-2 days')",
		Columns:     []string{"title", "lang", "keywords"},
		Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
			u.News = &sitemap.News{PublicationName: "Freshmap Daily", Language: r.String("lang"), PublicationDate: r.LastMod,
				Title: r.String("title"), Keywords: strings.Split(r.String("keywords"), ", ")}
			return nil
		},
	})
	if err != nil {
		return products, news, err
	}
	news = sitemap.Section{Name: "news", Source: src, PageSize: 1000, Extensions: sitemap.ExtNews}
	return products, news, nil
}
