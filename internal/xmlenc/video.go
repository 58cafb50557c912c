package xmlenc

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/freshmap/sitemap/internal/limits"
	"github.com/freshmap/sitemap/urlset"
)

// appendVideos writes the videos of u, each valid one: an invalid video
// is dropped whole, for a video without the field at fault (a
// restriction, a price) would say something false.
func (e *Encoder) appendVideos(b []byte, u *urlset.URL) []byte {
	if e.ext&urlset.ExtVideo == 0 {
		e.drop(Invalid(u, "video", ErrUndeclared), "video:video")
		return b
	}
	for i := range u.Videos {
		mark := len(b)
		var err error
		if b, err = e.appendVideo(b, u, &u.Videos[i]); err != nil {
			b = b[:mark]
			e.drop(err, "video:video")
		}
	}
	return b
}

// appendVideo writes a <video:video> element after checking its required
// tags, ranges and values; the order of its children follows the schema.
// It returns the *InvalidURLError of the first rule broken, and then what
// it appended is to be rolled back.
func (e *Encoder) appendVideo(b []byte, u *urlset.URL, v *urlset.Video) ([]byte, error) {
	switch {
	case v.ThumbnailLoc == "":
		return b, Invalid(u, "video.thumbnail_loc", ErrRequired)
	case strings.TrimSpace(v.Title) == "":
		return b, Invalid(u, "video.title", ErrRequired)
	case runeCount(v.Title) > limits.VideoTitle:
		return b, Invalid(u, "video.title", ErrLength)
	case strings.TrimSpace(v.Description) == "":
		return b, Invalid(u, "video.description", ErrRequired)
	case runeCount(v.Description) > limits.VideoDesc:
		return b, Invalid(u, "video.description", ErrLength)
	case v.ContentLoc == "" && v.PlayerLoc == "":
		return b, Invalid(u, "video.content_loc", ErrNeedsPlayer)
	case v.Duration != 0 && (v.Duration < time.Second || v.Duration > limits.VideoDuration):
		return b, Invalid(u, "video.duration", ErrRange)
	case v.Rating != nil && !(*v.Rating >= 0 && *v.Rating <= 5):
		return b, Invalid(u, "video.rating", ErrRange)
	case v.ViewCount != nil && *v.ViewCount < 0:
		return b, Invalid(u, "video.view_count", ErrRange)
	case len(v.Tags) > limits.VideoTags:
		return b, Invalid(u, "video.tag", ErrTooMany)
	case runeCount(v.Category) > limits.VideoCategory:
		return b, Invalid(u, "video.category", ErrLength)
	case v.UploaderInfo != "" && v.Uploader == "":
		return b, Invalid(u, "video.uploader", ErrRequired)
	case v.PlayerLoc == "" && (v.AllowEmbed != "" || v.Autoplay != ""):
		return b, Invalid(u, "video.player_loc", ErrRequired)
	case !ValidYear(v.ExpirationDate) && !v.ExpirationDate.IsZero():
		return b, Invalid(u, "video.expiration_date", ErrYear)
	case !ValidYear(v.PublicationDate) && !v.PublicationDate.IsZero():
		return b, Invalid(u, "video.publication_date", ErrYear)
	}
	allowEmbed, ok1 := yesNo(v.AllowEmbed)
	family, ok2 := yesNo(v.FamilyFriendly)
	subscription, ok3 := yesNo(v.RequiresSubscription)
	live, ok4 := yesNo(v.Live)
	switch {
	case !ok1:
		return b, Invalid(u, "video.player_loc.allow_embed", ErrValue)
	case !ok2:
		return b, Invalid(u, "video.family_friendly", ErrValue)
	case !ok3:
		return b, Invalid(u, "video.requires_subscription", ErrValue)
	case !ok4:
		return b, Invalid(u, "video.live", ErrValue)
	}

	var err error
	b = append(b, "<video:video><video:thumbnail_loc>"...)
	if b, err = e.appendLoc(b, "video.thumbnail_loc", u.Loc, v.ThumbnailLoc, false); err != nil {
		return b, err
	}
	b = append(b, "</video:thumbnail_loc>"...)
	b = appendElem(b, "video:title", v.Title)
	b = appendElem(b, "video:description", v.Description)
	if v.ContentLoc != "" {
		b = append(b, "<video:content_loc>"...)
		if b, err = e.appendLoc(b, "video.content_loc", u.Loc, v.ContentLoc, false); err != nil {
			return b, err
		}
		b = append(b, "</video:content_loc>"...)
	}
	if v.PlayerLoc != "" {
		b = append(b, "<video:player_loc"...)
		if allowEmbed != "" {
			b = append(b, ` allow_embed="`...)
			b = append(b, allowEmbed...)
			b = append(b, '"')
		}
		if v.Autoplay != "" {
			b = append(b, ` autoplay="`...)
			b = AppendAttr(b, v.Autoplay)
			b = append(b, '"')
		}
		b = append(b, '>')
		if b, err = e.appendLoc(b, "video.player_loc", u.Loc, v.PlayerLoc, false); err != nil {
			return b, err
		}
		b = append(b, "</video:player_loc>"...)
	}
	if v.Duration != 0 {
		b = append(b, "<video:duration>"...)
		b = strconv.AppendInt(b, int64(v.Duration/time.Second), 10)
		b = append(b, "</video:duration>"...)
	}
	b = appendTimeElem(b, "video:expiration_date", v.ExpirationDate)
	if v.Rating != nil {
		b = append(b, "<video:rating>"...)
		b = appendDecimal(b, math.Round(*v.Rating*100)/100)
		b = append(b, "</video:rating>"...)
	}
	if v.ViewCount != nil {
		b = append(b, "<video:view_count>"...)
		b = strconv.AppendInt(b, *v.ViewCount, 10)
		b = append(b, "</video:view_count>"...)
	}
	b = appendTimeElem(b, "video:publication_date", v.PublicationDate)
	for _, tag := range v.Tags {
		b = appendElem(b, "video:tag", tag)
	}
	b = appendElem(b, "video:category", v.Category)
	b = appendElem(b, "video:family_friendly", family)
	if r := v.Restriction; r != nil {
		if b, err = appendRelList(b, u, "video:restriction", r.Relationship, r.Countries, isCountry); err != nil {
			return b, err
		}
	}
	if v.GalleryLoc != "" {
		b = append(b, "<video:gallery_loc"...)
		if v.GalleryTitle != "" {
			b = append(b, ` title="`...)
			b = AppendAttr(b, v.GalleryTitle)
			b = append(b, '"')
		}
		b = append(b, '>')
		if b, err = e.appendLoc(b, "video.gallery_loc", u.Loc, v.GalleryLoc, false); err != nil {
			return b, err
		}
		b = append(b, "</video:gallery_loc>"...)
	}
	for i := range v.Prices {
		if b, err = appendPrice(b, u, &v.Prices[i]); err != nil {
			return b, err
		}
	}
	b = appendElem(b, "video:requires_subscription", subscription)
	if v.Uploader != "" {
		b = append(b, "<video:uploader"...)
		if v.UploaderInfo != "" {
			b = append(b, ` info="`...)
			if b, err = e.appendLoc(b, "video.uploader.info", u.Loc, v.UploaderInfo, false); err != nil {
				return b, err
			}
			b = append(b, '"')
		}
		b = append(b, '>')
		b = AppendEscaped(b, v.Uploader)
		b = append(b, "</video:uploader>"...)
	}
	if p := v.Platform; p != nil {
		if b, err = appendRelList(b, u, "video:platform", p.Relationship, p.Platforms, isPlatform); err != nil {
			return b, err
		}
	}
	b = appendElem(b, "video:live", live)
	return append(b, "</video:video>"...), nil
}

// yesNo checks a yes/no field; "" means unset.
func yesNo(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "":
		return "", true
	case "yes":
		return "yes", true
	case "no":
		return "no", true
	}
	return "", false
}

// appendRelList writes <name relationship="allow|deny">a b c</name>.
func appendRelList(b []byte, u *urlset.URL, name, rel string, items []string, ok func(string) bool) ([]byte, error) {
	field := strings.Replace(name, ":", ".", 1)
	if rel != "allow" && rel != "deny" {
		return b, Invalid(u, field+".relationship", ErrValue)
	}
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, ` relationship="`...)
	b = append(b, rel...)
	b = append(b, `">`...)
	for i, it := range items {
		if !ok(it) {
			return b, Invalid(u, field, ErrValue)
		}
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, it...)
	}
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>'), nil
}

func isCountry(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func isPlatform(s string) bool { return s == "web" || s == "mobile" || s == "tv" }

func appendPrice(b []byte, u *urlset.URL, p *urlset.Price) ([]byte, error) {
	switch {
	case p.Amount != "" && !isDecimal(p.Amount):
		return b, Invalid(u, "video.price", ErrValue)
	case p.Amount != "" && p.Currency == "":
		return b, Invalid(u, "video.price.currency", ErrRequired)
	case p.Currency != "" && !(len(p.Currency) == 3 && isUpper(p.Currency)):
		return b, Invalid(u, "video.price.currency", ErrValue)
	case p.Amount == "" && p.Type == "":
		return b, Invalid(u, "video.price.type", ErrRequired)
	case p.Type != "" && p.Type != "rent" && p.Type != "purchase" && p.Type != "own":
		return b, Invalid(u, "video.price.type", ErrValue)
	case p.Resolution != "" && p.Resolution != "HD" && p.Resolution != "SD":
		return b, Invalid(u, "video.price.resolution", ErrValue)
	}
	b = append(b, "<video:price"...)
	typ := p.Type
	if typ == "own" {
		typ = "purchase" // Google's name for what the schema calls purchase
	}
	for _, a := range [...]struct{ name, v string }{{"currency", p.Currency}, {"type", typ}, {"resolution", p.Resolution}} {
		if a.v != "" {
			b = append(b, ' ')
			b = append(b, a.name...)
			b = append(b, `="`...)
			b = append(b, a.v...)
			b = append(b, '"')
		}
	}
	b = append(b, '>')
	b = append(b, p.Amount...)
	return append(b, "</video:price>"...), nil
}

// isDecimal accepts a non-negative decimal such as 3, 1.99 or .5.
func isDecimal(s string) bool {
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

func isUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// runeCount counts characters the way the schema's maxLength does.
func runeCount(s string) int { return utf8.RuneCountInString(s) }
