package parse

import (
	"encoding/xml"

	"github.com/freshmap/sitemap"
)

// url reads one <url> element whole, after its start tag.
func (p *parser) url(u *sitemap.URL) error {
	hasLoc := false
	err := p.children(func(se xml.StartElement) error {
		switch se.Name.Space {
		case nsSitemap:
			switch se.Name.Local {
			case "loc":
				hasLoc = true
				return p.trimmed(&u.Loc)
			case "lastmod":
				return p.datetime(&u.LastMod, &u.LastModDateOnly)
			case "changefreq":
				return p.changefreq(&u.ChangeFreq)
			case "priority":
				return p.decimal(&u.Priority)
			}
		case nsImage:
			if se.Name.Local == "image" {
				u.Images = append(u.Images, sitemap.Image{})
				return p.image(&u.Images[len(u.Images)-1])
			}
		case nsVideo:
			if se.Name.Local == "video" {
				u.Videos = append(u.Videos, sitemap.Video{})
				return p.video(&u.Videos[len(u.Videos)-1])
			}
		case nsNews:
			if se.Name.Local == "news" {
				u.News = new(sitemap.News)
				return p.news(u.News)
			}
		case nsXHTML:
			if se.Name.Local == "link" && attr(se, "rel") == "alternate" && hasAttr(se, "hreflang") {
				u.Alternates = append(u.Alternates, sitemap.Alternate{Hreflang: attr(se, "hreflang"), Href: attr(se, "href")})
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
func (p *parser) changefreq(dst *sitemap.ChangeFreq) error {
	var s string
	if err := p.trimmed(&s); err != nil {
		return err
	}
	switch f := sitemap.ChangeFreq(s); f {
	case sitemap.Always, sitemap.Hourly, sitemap.Daily, sitemap.Weekly, sitemap.Monthly, sitemap.Yearly, sitemap.Never:
		*dst = f
	default:
		p.invalid("not a changefreq: %q", s)
	}
	return nil
}

// image reads one <image:image> element whole.
func (p *parser) image(img *sitemap.Image) error {
	hasLoc := false
	err := p.children(func(se xml.StartElement) error {
		if se.Name.Space == nsImage {
			switch se.Name.Local {
			case "loc":
				hasLoc = true
				return p.trimmed(&img.Loc)
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
