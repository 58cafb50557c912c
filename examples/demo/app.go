package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// App is the demo shop: a home page, static pages, product and article
// pages, product images and robots.txt, all read from the catalogue. Its
// handlers use r.PathValue, so they work with net/http's ServeMux and
// with chi alike.
type App struct {
	db   *sql.DB
	base string
	log  *slog.Logger
}

// NewApp returns the shop for the catalogue db, whose absolute URLs start
// with base (such as "http://localhost:8080").
func NewApp(db *sql.DB, base string, log *slog.Logger) *App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &App{db: db, base: strings.TrimSuffix(base, "/"), log: log}
}

// Languages are the languages every product page exists in, with the path
// prefix of each; English is also the x-default.
var Languages = []struct{ Code, Prefix string }{{"en", ""}, {"de", "/de"}, {"fr", "/fr"}}

// StaticPages are the shop's fixed pages besides the home page: path and
// title.
var StaticPages = []struct{ Path, Title string }{
	{"/about", "About us"},
	{"/contact", "Contact"},
	{"/shipping", "Shipping"},
	{"/returns", "Returns"},
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Title}} · Freshmap demo shop</title>
<link rel="canonical" href="{{.Canonical}}">
{{with .Modified}}<meta property="article:modified_time" content="{{.}}">
{{end}}{{with .PageModified}}<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebPage","dateModified":{{.}}}</script>
{{end}}{{range .Alternates}}<link rel="alternate" hreflang="{{.Lang}}" href="{{.Href}}">
{{end}}</head>
<body><p><a href="/">Freshmap demo shop</a> · <a href="/news">News</a> · <a href="/sitemap_index.html">Sitemap</a></p>
<h1>{{.Title}}</h1>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{range .Images}}<img src="{{.}}" width="160" height="120" alt="">
{{end}}{{if .Links}}<ul>
{{range .Links}}<li><a href="{{.Href}}">{{.Text}}</a></li>
{{end}}</ul>{{end}}
</body></html>
`))

type link struct{ Lang, Href, Text string }

type pageData struct {
	Lang, Title string
	Paragraphs  []string
	Images      []string
	Links       []link
	Alternates  []link
	Canonical   string
	// The page's dates, in RFC 3339, the same as its <lastmod> in the
	// sitemap (the self-audit compares them): an article's
	// article:modified_time, a product page's JSON-LD dateModified.
	Modified, PageModified string
}

// render writes the page d for r, whose canonical URL is its own: the
// base URL and the path (the query is never part of a page's identity
// here). A request of the sitemap's self-audit (sitemap.AuditHeader)
// would be left out of analytics here, if the demo had any.
func (a *App) render(w http.ResponseWriter, r *http.Request, d pageData) {
	if d.Lang == "" {
		d.Lang = "en"
	}
	d.Canonical = a.base + r.URL.EscapedPath()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := page.Execute(w, d); err != nil {
		a.log.Error("demo: rendering a page", "err", err)
	}
}

func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, sql.ErrNoRows) {
		http.NotFound(w, r)
		return
	}
	a.log.ErrorContext(r.Context(), "demo: query failed", "path", r.URL.Path, "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// Home serves the home page: links to the sitemap, some products and the
// latest news.
func (a *App) Home(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Welcome", Paragraphs: []string{"A shop with a huge catalogue and a sitemap that is always fresh."},
		Links: []link{{Href: "/sitemap_index.html", Text: "Sitemap (HTML view)"}, {Href: "/sitemap_index.xml", Text: "Sitemap index"}, {Href: "/robots.txt", Text: "robots.txt"}}}
	for _, p := range StaticPages {
		d.Links = append(d.Links, link{Href: p.Path, Text: p.Title})
	}
	links, err := a.links(r.Context(), "SELECT id, slug, name FROM products WHERE published ORDER BY id LIMIT 10",
		func(id int64, slug string) string { return productPath("", id, slug) })
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Links = append(d.Links, links...)
	a.render(w, r, d)
}

// links runs query, which selects an id, a slug and a text, and makes a
// link of each row, to the path href gives.
func (a *App) links(ctx context.Context, query string, href func(id int64, slug string) string) ([]link, error) {
	rows, err := a.db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ls []link
	for rows.Next() {
		var id int64
		var slug, text string
		if err := rows.Scan(&id, &slug, &text); err != nil {
			return nil, err
		}
		ls = append(ls, link{Href: href(id, slug), Text: text})
	}
	return ls, rows.Err()
}

// Static returns the handler of a fixed page.
func (a *App) Static(title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.render(w, r, pageData{Title: title, Paragraphs: []string{"This page is listed in the sitemap's pages section."}})
	}
}

func productPath(prefix string, id int64, slug string) string {
	return prefix + "/p/" + strconv.FormatInt(id, 10) + "/" + slug
}

// Product returns the handler of /p/{id}/{slug} in a language: prefix is
// its path prefix ("", "/de" or "/fr"). A draft product is 404; a wrong
// slug redirects to the right one.
func (a *App) Product(prefix string) http.HandlerFunc {
	lang := "en"
	for _, l := range Languages {
		if l.Prefix == prefix {
			lang = l.Code
		}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		var slug, name string
		var price, updated int64
		err = a.db.QueryRowContext(r.Context(), "SELECT slug, name, price_cents, updated_at FROM products WHERE id = ? AND published", id).
			Scan(&slug, &name, &price, &updated)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if r.PathValue("slug") != slug {
			http.Redirect(w, r, productPath(prefix, id, slug), http.StatusMovedPermanently)
			return
		}
		d := pageData{Lang: lang, Title: name, Paragraphs: []string{
			fmt.Sprintf("Price: %d.%02d €", price/100, price%100),
			"Last updated " + time.Unix(updated, 0).UTC().Format(time.DateOnly) + ".",
		}, PageModified: time.Unix(updated, 0).UTC().Format(time.RFC3339)}
		for _, l := range Languages {
			d.Alternates = append(d.Alternates, link{Lang: l.Code, Href: a.base + productPath(l.Prefix, id, slug)})
		}
		d.Alternates = append(d.Alternates, link{Lang: "x-default", Href: a.base + productPath("", id, slug)})
		rows, err := a.db.QueryContext(r.Context(), "SELECT path FROM product_images WHERE product_id = ? ORDER BY position", id)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var path string
			if err := rows.Scan(&path); err != nil {
				a.fail(w, r, err)
				return
			}
			d.Images = append(d.Images, path)
		}
		if err := rows.Err(); err != nil {
			a.fail(w, r, err)
			return
		}
		a.render(w, r, d)
	}
}

// Image serves /img/{file}, a product picture drawn as an SVG.
func (a *App) Image(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	name, ok := strings.CutSuffix(file, ".svg")
	id, k, ok2 := strings.Cut(name, "-")
	if !ok || !ok2 || !isDigits(id) || !isDigits(k) {
		http.NotFound(w, r)
		return
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><rect width="160" height="120" fill="hsl(%d,60%%,70%%)"/>`+
		`<text x="80" y="65" text-anchor="middle" font-family="sans-serif">#%s · %s</text></svg>`, h.Sum32()%360, id, k)
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != "" && len(s) < 19
}

// News serves /news, the latest articles.
func (a *App) News(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "News", Paragraphs: []string{"The articles of the last two days are in the news sitemap."}}
	links, err := a.links(r.Context(), "SELECT id, slug, title FROM articles ORDER BY id DESC LIMIT 20",
		func(id int64, slug string) string { return "/news/" + strconv.FormatInt(id, 10) + "/" + slug })
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Links = links
	a.render(w, r, d)
}

// Article serves /news/{id}/{slug}.
func (a *App) Article(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	var slug, title, lang string
	var published int64
	err = a.db.QueryRowContext(r.Context(), "SELECT slug, title, lang, published_at FROM articles WHERE id = ?", id).
		Scan(&slug, &title, &lang, &published)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if r.PathValue("slug") != slug {
		http.Redirect(w, r, "/news/"+strconv.FormatInt(id, 10)+"/"+slug, http.StatusMovedPermanently)
		return
	}
	a.render(w, r, pageData{Lang: lang, Title: title, Paragraphs: []string{
		"Published " + time.Unix(published, 0).UTC().Format(time.RFC1123) + "."},
		Modified: time.Unix(published, 0).UTC().Format(time.RFC3339)})
}

// Robots serves the shop's own robots.txt. The sitemap middleware appends
// its Sitemap: line to it.
func (a *App) Robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, "User-agent: *\nDisallow: /cart\nDisallow: /search\n")
}
