package parse

import (
	"encoding/xml"

	"github.com/freshmap/sitemap"
)

// news reads one <news:news> element whole. Genres, keywords and stock
// tickers are comma-separated lists.
func (p *parser) news(n *sitemap.News) error {
	return p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsNews {
			switch se.Name.Local {
			case "publication":
				return p.publication(n)
			case "genres":
				return p.list(&n.Genres, ',')
			case "publication_date":
				return p.datetime(&n.PublicationDate, nil)
			case "title":
				return p.str(&n.Title)
			case "keywords":
				return p.list(&n.Keywords, ',')
			case "stock_tickers":
				return p.list(&n.StockTickers, ',')
			}
		}
		return p.skip()
	})
}

// publication reads <news:publication>: name and language.
func (p *parser) publication(n *sitemap.News) error {
	return p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsNews {
			switch se.Name.Local {
			case "name":
				return p.str(&n.PublicationName)
			case "language":
				return p.trimmed(&n.Language)
			}
		}
		return p.skip()
	})
}
