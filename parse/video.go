package parse

import (
	"encoding/xml"
	"math"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// video reads one <video:video> element whole.
func (p *parser) video(v *urlset.Video) error {
	return p.children(func(se xml.StartElement) error {
		if se.Name.Space != nsVideo {
			return p.skip()
		}
		switch se.Name.Local {
		case "thumbnail_loc":
			return p.trimmed(&v.ThumbnailLoc)
		case "title":
			return p.str(&v.Title)
		case "description":
			return p.str(&v.Description)
		case "content_loc":
			return p.trimmed(&v.ContentLoc)
		case "player_loc":
			v.AllowEmbed, v.Autoplay = attr(se, "allow_embed"), attr(se, "autoplay")
			return p.trimmed(&v.PlayerLoc)
		case "duration":
			var secs int64
			ok, err := p.integer(&secs, math.MaxInt64/int64(time.Second))
			if ok {
				v.Duration = time.Duration(secs) * time.Second
			}
			return err
		case "expiration_date":
			return p.datetime(&v.ExpirationDate, nil)
		case "rating":
			return p.decimal(&v.Rating)
		case "view_count":
			var n int64
			ok, err := p.integer(&n, math.MaxInt64)
			if ok {
				v.ViewCount = &n
			}
			return err
		case "publication_date":
			return p.datetime(&v.PublicationDate, nil)
		case "tag":
			var tag string
			err := p.str(&tag)
			v.Tags = append(v.Tags, tag)
			return err
		case "category":
			return p.str(&v.Category)
		case "family_friendly":
			return p.trimmed(&v.FamilyFriendly)
		case "restriction":
			v.Restriction = &urlset.Restriction{Relationship: attr(se, "relationship")}
			return p.list(&v.Restriction.Countries, 0)
		case "gallery_loc":
			v.GalleryTitle = attr(se, "title")
			return p.trimmed(&v.GalleryLoc)
		case "price":
			v.Prices = append(v.Prices, urlset.Price{Currency: attr(se, "currency"), Type: attr(se, "type"), Resolution: attr(se, "resolution")})
			return p.trimmed(&v.Prices[len(v.Prices)-1].Amount)
		case "requires_subscription":
			return p.trimmed(&v.RequiresSubscription)
		case "uploader":
			v.UploaderInfo = attr(se, "info")
			return p.str(&v.Uploader)
		case "platform":
			v.Platform = &urlset.Platform{Relationship: attr(se, "relationship")}
			return p.list(&v.Platform.Platforms, 0)
		case "live":
			return p.trimmed(&v.Live)
		}
		return p.skip()
	})
}
