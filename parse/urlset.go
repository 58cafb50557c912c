package parse

import (
	"encoding/xml"
	"strings"

	"github.com/freshmap/sitemap/urlset"
)

// url reads one <url> element whole, after its start tag.
func (p *parser) url(u *urlset.URL) error {
	hasLoc := false
	err := p.children(func(se xml.StartElement) error {
		switch se.Name.Space {
		case nsSitemap:
			switch se.Name.Local {
			case "loc":
				hasLoc = true
				return p.loc(&u.Loc, "<loc>")
			case "lastmod":
				return p.datetime(&u.LastMod, &u.LastModDateOnly)
			case "changefreq":
				return p.changefreq(&u.ChangeFreq)
			case "priority":
				return p.decimal(&u.Priority)
			}
		case nsImage:
			if se.Name.Local == "image" {
				u.Images = append(u.Images, urlset.Image{})
				return p.image(&u.Images[len(u.Images)-1])
			}
		case nsVideo:
			if se.Name.Local == "video" {
				u.Videos = append(u.Videos, urlset.Video{})
				return p.video(&u.Videos[len(u.Videos)-1])
			}
		case nsNews:
			if se.Name.Local == "news" {
				u.News = new(urlset.News)
				return p.news(u.News)
			}
		case nsXHTML:
			if se.Name.Local == "link" && attr(se, "rel") == "alternate" && hasAttr(se, "hreflang") {
				return p.alternate(se, u)
			}
		}
		return p.skip()
	})
	if err == nil && !hasLoc {
		p.invalid("no <loc>")
	}
	return err
}

// changefreq stores one of the seven words the protocol allows.
func (p *parser) changefreq(dst *urlset.ChangeFreq) error {
	var s string
	if err := p.trimmed(&s); err != nil {
		return err
	}
	switch f := urlset.ChangeFreq(s); f {
	case urlset.Always, urlset.Hourly, urlset.Daily, urlset.Weekly, urlset.Monthly, urlset.Yearly, urlset.Never:
		*dst = f
	default:
		p.invalid("not a changefreq: %q", s)
	}
	return nil
}

// image reads one <image:image> element whole.
func (p *parser) image(img *urlset.Image) error {
	hasLoc := false
	err := p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsImage {
			switch se.Name.Local {
			case "loc":
				hasLoc = true
				return p.loc(&img.Loc, "<image:loc>")
			case "caption":
				return p.str(&img.Caption)
			case "geo_location":
				return p.str(&img.GeoLocation)
			case "title":
				return p.str(&img.Title)
			case "license":
				return p.trimmed(&img.License)
			}
		}
		return p.skip()
	})
	if err == nil && !hasLoc {
		p.invalid("no <image:loc>")
	}
	return err
}

// alternate reads one <xhtml:link rel="alternate" hreflang="…">. One
// without an href, or with an empty one, is no alternate: it is skipped,
// and makes the entry invalid.
func (p *parser) alternate(se xml.StartElement, u *urlset.URL) error {
	href := strings.TrimSpace(attr(se, "href"))
	if err := p.skip(); err != nil || href != "" {
		if err == nil {
			u.Alternates = append(u.Alternates, urlset.Alternate{Hreflang: attr(se, "hreflang"), Href: href})
		}
		return err
	}
	if hasAttr(se, "href") {
		p.invalid("xhtml:link hreflang=%q has an empty href", attr(se, "hreflang"))
	} else {
		p.invalid("xhtml:link hreflang=%q has no href", attr(se, "hreflang"))
	}
	return nil
}
