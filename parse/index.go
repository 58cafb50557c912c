package parse

import (
	"encoding/xml"
)

// sitemap reads one <sitemap> entry of an index whole.
func (p *parser) sitemap(s *Sitemap) error {
	hasLoc := false
	err := p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsSitemap {
			switch se.Name.Local {
			case "loc":
				hasLoc = true
				return p.loc(&s.Loc, "<loc>")
			case "lastmod":
				return p.datetime(&s.LastMod, nil)
			}
		}
		return p.skip()
	})
	if err == nil && !hasLoc {
		p.invalid("no <loc>")
	}
	return err
}
