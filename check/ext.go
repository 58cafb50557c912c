package check

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/freshmap/sitemap/internal/langtag"
	"github.com/freshmap/sitemap/urlset"

	"github.com/freshmap/sitemap/internal/limits"
)

// images checks the <image:image> elements of u.
func (f *file) images(u *urlset.URL, line, col int) {
	if len(u.Images) > limits.Images {
		f.add("image-count", line, col, u.Loc, "%d images; at most %d in one <url>", len(u.Images), limits.Images)
	}
	for _, img := range u.Images {
		if img.Loc != "" {
			f.extURL("image:loc", img.Loc, u.Loc, line, col)
		}
		if img.License != "" {
			f.extURL("image:license", img.License, u.Loc, line, col)
		}
	}
}

// video checks one <video:video> of u.
func (f *file) video(u *urlset.URL, v *urlset.Video, line, col int) {
	for _, req := range []struct{ name, val string }{
		{"video:thumbnail_loc", v.ThumbnailLoc}, {"video:title", v.Title}, {"video:description", v.Description},
	} {
		if strings.TrimSpace(req.val) == "" {
			f.add("video-required", line, col, u.Loc, "a video has no %s", req.name)
		}
	}
	if v.ContentLoc == "" && v.PlayerLoc == "" {
		f.add("video-required", line, col, u.Loc, "a video has neither video:content_loc nor video:player_loc")
	}
	for _, l := range []struct {
		name string
		val  string
		max  int
	}{{"video:title", v.Title, limits.VideoTitle}, {"video:description", v.Description, limits.VideoDesc}, {"video:category", v.Category, limits.VideoCategory}} {
		if n := utf8.RuneCountInString(l.val); n > l.max {
			f.add("video-length", line, col, u.Loc, "%s has %d characters; at most %d", l.name, n, l.max)
		}
	}
	if len(v.Tags) > limits.VideoTags {
		f.add("video-length", line, col, u.Loc, "%d video:tag; at most %d", len(v.Tags), limits.VideoTags)
	}
	for _, l := range []struct{ name, val string }{
		{"video:thumbnail_loc", v.ThumbnailLoc}, {"video:content_loc", v.ContentLoc}, {"video:player_loc", v.PlayerLoc},
		{"video:gallery_loc", v.GalleryLoc}, {"video:uploader info", v.UploaderInfo},
	} {
		if l.val != "" {
			f.extURL(l.name, l.val, u.Loc, line, col)
		}
	}
	f.videoValues(u, v, line, col)
}

// videoValues checks the ranges and enumerations of a video.
func (f *file) videoValues(u *urlset.URL, v *urlset.Video, line, col int) {
	bad := func(format string, args ...any) { f.add("video-value", line, col, u.Loc, format, args...) }
	if v.Duration != 0 && (v.Duration < time.Second || v.Duration > limits.VideoDuration) {
		bad("video:duration %d s is not from 1 to 28,800", int64(v.Duration/time.Second))
	}
	if v.Rating != nil && !(*v.Rating >= 0 && *v.Rating <= 5) {
		bad("video:rating %g is not from 0.0 to 5.0", *v.Rating)
	}
	for _, yn := range []struct{ name, val string }{
		{"player_loc allow_embed", v.AllowEmbed}, {"video:family_friendly", v.FamilyFriendly},
		{"video:requires_subscription", v.RequiresSubscription}, {"video:live", v.Live},
	} {
		if yn.val != "" && !isYesNo(yn.val) {
			bad("%s is %q, not yes or no", yn.name, yn.val)
		}
	}
	if r := v.Restriction; r != nil && r.Relationship != "allow" && r.Relationship != "deny" {
		bad("video:restriction relationship is %q, not allow or deny", r.Relationship)
	}
	if p := v.Platform; p != nil {
		if p.Relationship != "allow" && p.Relationship != "deny" {
			bad("video:platform relationship is %q, not allow or deny", p.Relationship)
		}
		for _, pl := range p.Platforms {
			if pl != "web" && pl != "mobile" && pl != "tv" {
				bad("video:platform %q is not web, mobile or tv", pl)
			}
		}
	}
}

// isYesNo accepts what the video schema's tYesNo does: yes, Yes, YES,
// no, No or NO.
func isYesNo(s string) bool {
	switch s {
	case "yes", "Yes", "YES", "no", "No", "NO":
		return true
	}
	return false
}

// newsRules checks the <news:news> of u.
func (f *file) newsRules(u *urlset.URL, line, col int) {
	n := u.News
	for _, req := range []struct {
		name    string
		missing bool
	}{
		{"news:publication/news:name", strings.TrimSpace(n.PublicationName) == ""},
		{"news:publication/news:language", n.Language == ""},
		{"news:publication_date", n.PublicationDate.IsZero()},
		{"news:title", strings.TrimSpace(n.Title) == ""},
	} {
		if req.missing {
			f.add("news-required", line, col, u.Loc, "a news entry has no %s", req.name)
		}
	}
	if n.Language != "" && !isNewsLanguage(n.Language) {
		f.add("news-value", line, col, u.Loc, "news:language %q is not an ISO 639 code", n.Language)
	}
	for _, g := range n.Genres {
		switch g {
		case "PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated":
		default:
			f.add("news-value", line, col, u.Loc, "news:genres %q is not PressRelease, Satire, Blog, OpEd, Opinion or UserGenerated", g)
		}
	}
	if len(n.StockTickers) > limits.StockTickers {
		f.add("news-value", line, col, u.Loc, "%d news:stock_tickers; at most %d", len(n.StockTickers), limits.StockTickers)
	}
	for _, t := range n.StockTickers {
		if ex, sym, ok := strings.Cut(t, ":"); !ok || !isWord(ex) || !isWord(sym) {
			f.add("news-value", line, col, u.Loc, "news:stock_tickers %q is not EXCHANGE:SYMBOL", t)
		}
	}
}

// isNewsLanguage accepts an ISO 639 code of two or three lower-case
// letters, or zh-cn or zh-tw, as the news schema does.
func isNewsLanguage(s string) bool {
	if s == "zh-cn" || s == "zh-tw" {
		return true
	}
	return len(s) >= 2 && len(s) <= 3 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}

// isWord accepts ASCII letters and digits, at least one.
func isWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
}

// alternates checks the hreflang links of u and keeps them, as hashes,
// for the reciprocity rule.
func (f *file) alternates(u *urlset.URL, line, col int) {
	if len(u.Alternates) == 0 {
		return
	}
	self := false
	for i, a := range u.Alternates {
		if !langtag.Valid(a.Hreflang) {
			f.add("hreflang-tag", line, col, u.Loc, "hreflang %q is not a well-formed BCP 47 tag", a.Hreflang)
		}
		for _, b := range u.Alternates[:i] {
			if strings.EqualFold(a.Hreflang, b.Hreflang) {
				f.add("hreflang-duplicate", line, col, u.Loc, "hreflang %q is listed twice", a.Hreflang)
				break
			}
		}
		f.extURL("xhtml:link href", a.Href, u.Loc, line, col)
		if a.Href == u.Loc {
			self = true
		} else {
			f.links = append(f.links, link(u.Loc, a.Href))
		}
	}
	if !self {
		f.add("hreflang-self", line, col, u.Loc, "no alternate links to the page itself")
	}
}
