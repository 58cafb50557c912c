package parse

import (
	"encoding/xml"

	"github.com/freshmap/sitemap/urlset"
)

// news reads one <news:news> element whole. Genres, keywords and stock
// tickers are comma-separated lists.
func (p *parser) news(n *urlset.News) error {
	return p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsNews {
			switch se.Name.Local {
			case "publication":
				return p.publication(n)
			case "access":
				return p.access()
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
func (p *parser) publication(n *urlset.News) error {
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

// access reads <news:access>, which urlset.News does not hold: the
// schema allows Subscription or Registration (and no element for an open
// article); any other value is invalid.
func (p *parser) access() error {
	var s string
	if err := p.trimmed(&s); err != nil {
		return err
	}
	if s != "Subscription" && s != "Registration" {
		p.invalid("not Subscription or Registration: %s", quote([]byte(s)))
	}
	return nil
}
