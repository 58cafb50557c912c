package urlset

import (
	"time"
)

// URL is one <url> entry of a sitemap: its location, the optional standard
// tags, and the optional image, video, news and hreflang extensions.
//
// Only Loc is required. A zero field is not written: no lastmod is ever
// invented, and an unset Priority (nil) is distinct from an explicit 0.0.
// Slices and pointers are read while the URL is encoded and never kept, so a
// sitemap.Source may reuse them for the next URL once its yield returns.
type URL struct {
	// Loc is the absolute http or https URL of the page, which must lie under
	// the sitemap's base URL (same scheme, host and port, below its path).
	// It is written in canonical form: scheme and host in lower case, "/"
	// for an empty path, non-ASCII characters and others a URI may not hold
	// percent-encoded as UTF-8 (IRI to URI), and an internationalized host
	// converted to punycode (IDNA lookup profile: "bücher.example" becomes
	// "xn--bcher-kva.example"). The result must be 12 to 2,047 characters
	// long, with no user info and no "." or ".." path segments; a Loc that
	// breaks a rule is not written. The same conversion applies to every
	// other URL a sitemap holds (images, videos, alternates).
	Loc string
	// LastMod is when the page last changed. The zero time means unknown, and
	// then no <lastmod> is written. It is written in UTC, to the second.
	LastMod time.Time
	// LastModDateOnly writes LastMod as a date (YYYY-MM-DD) instead of a full
	// timestamp.
	LastModDateOnly bool
	// ChangeFreq is the optional <changefreq> hint; "" writes none.
	ChangeFreq ChangeFreq
	// Priority is the optional <priority>, from 0.0 to 1.0; nil writes none.
	// In Go 1.26 new(0.8) makes the pointer.
	Priority *float64

	Images []Image // at most 1,000; needs the image extension
	Videos []Video // needs the video extension
	News   *News   // needs the news extension
	// Alternates are the hreflang links of the page: one per language
	// version, including the page itself, and "x-default" at most once;
	// each Hreflang a well-formed BCP 47 tag, none twice (compared without
	// regard to case). They need the xhtml extension.
	Alternates []Alternate
	// Hreflang is the page's own language tag, such as "en". It is used only
	// when none of the Alternates links to Loc: the self link {Hreflang,
	// Loc} is then added (and reported with ErrSelfLinkAdded). With Hreflang
	// empty, a URL whose Alternates do not list it is not written.
	Hreflang string
}

// ChangeFreq is the value of a <changefreq> element.
type ChangeFreq string

// The values the protocol allows for <changefreq>.
const (
	Always  ChangeFreq = "always"
	Hourly  ChangeFreq = "hourly"
	Daily   ChangeFreq = "daily"
	Weekly  ChangeFreq = "weekly"
	Monthly ChangeFreq = "monthly"
	Yearly  ChangeFreq = "yearly"
	Never   ChangeFreq = "never"
)

// Image is an <image:image> of the Google image extension.
type Image struct {
	Loc         string // required; absolute http(s) URL, may be on another host (a CDN)
	Caption     string // optional
	GeoLocation string // optional, e.g. "Limerick, Ireland"
	Title       string // optional
	License     string // optional; absolute http(s) URL
}

// Video is a <video:video> of the Google video extension. ThumbnailLoc, Title,
// Description and at least one of ContentLoc and PlayerLoc are required.
type Video struct {
	ThumbnailLoc string // required; absolute http(s) URL
	Title        string // required; at most 100 characters
	Description  string // required; at most 2,048 characters
	ContentLoc   string // absolute http(s) URL of the media file
	PlayerLoc    string // absolute http(s) URL of a player
	// AllowEmbed is the player_loc allow_embed attribute: "", "yes" or "no".
	AllowEmbed string
	// Autoplay is the player_loc autoplay attribute, written as given.
	Autoplay string
	// Duration is the length, from 1 second to 8 hours; zero writes none.
	// It is written in whole seconds, rounded down.
	Duration       time.Duration
	ExpirationDate time.Time // zero writes none
	Rating         *float64  // 0.0 to 5.0; nil writes none
	ViewCount      *int64    // zero or more; nil writes none
	// PublicationDate is when the video was first published; zero writes none.
	PublicationDate time.Time
	Tags            []string // at most 32
	Category        string   // at most 256 characters
	FamilyFriendly  string   // "", "yes" or "no"
	// Restriction limits the countries where the video may be shown.
	Restriction *Restriction
	GalleryLoc  string // absolute http(s) URL; optional
	// GalleryTitle is the title attribute of gallery_loc.
	GalleryTitle         string
	Prices               []Price
	RequiresSubscription string // "", "yes" or "no"
	Uploader             string // optional name of the uploader
	UploaderInfo         string // absolute http(s) URL; needs Uploader
	// Platform limits the platforms where the video may be shown.
	Platform *Platform
	Live     string // "", "yes" or "no"
}

// Restriction is a video's <video:restriction>: Countries is a list of ISO
// 3166 alpha-2 codes such as "IE", "GB", "US"; Relationship is "allow" or "deny".
type Restriction struct {
	Relationship string
	Countries    []string
}

// Platform is a video's <video:platform>: Platforms holds "web", "mobile" and
// "tv"; Relationship is "allow" or "deny".
type Platform struct {
	Relationship string
	Platforms    []string
}

// Price is a video's <video:price>. Amount is a non-negative decimal such as
// "1.99", or "" when only Type is given. Currency (ISO 4217, e.g. "EUR") is
// required with an amount. Type is "", "rent", or "own" (Google's name) or
// "purchase" (the schema's), both written as "purchase". Resolution is "",
// "HD" or "SD".
type Price struct {
	Amount     string
	Currency   string
	Type       string
	Resolution string
}

// News is a <news:news> of the Google News extension. A news sitemap should
// hold only articles from the last two days, at most 1,000 per file: give
// news sections (sitemap.Section) a PageSize of 1,000 or less.
type News struct {
	PublicationName string    // required
	Language        string    // required; ISO 639 code such as "en", "de", "zh-cn"
	PublicationDate time.Time // required
	Title           string    // required
	Keywords        []string  // optional; written comma-separated
	// Genres is a subset of PressRelease, Satire, Blog, OpEd, Opinion, UserGenerated.
	Genres       []string
	StockTickers []string // at most 5, each "EXCHANGE:SYMBOL" such as "NASDAQ:AMAT"
}

// Alternate is an <xhtml:link rel="alternate"> hreflang annotation.
type Alternate struct {
	// Hreflang is a BCP 47 language tag such as "en", "de-AT", "zh-Hant-TW"
	// or "es-419", or "x-default" for the fallback page.
	Hreflang string
	Href     string // absolute http(s) URL of that language's page
}
