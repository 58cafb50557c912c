package sitemap

import "github.com/freshmap/sitemap/urlset"

// The protocol's vocabulary lives in package urlset, which parse and check
// import without linking the server; every name is kept here, as the same
// type or value.

// URL is one <url> entry of a sitemap; see [urlset.URL].
type URL = urlset.URL

// ChangeFreq is the value of a <changefreq> element.
type ChangeFreq = urlset.ChangeFreq

// The values the protocol allows for <changefreq>.
const (
	Always  = urlset.Always
	Hourly  = urlset.Hourly
	Daily   = urlset.Daily
	Weekly  = urlset.Weekly
	Monthly = urlset.Monthly
	Yearly  = urlset.Yearly
	Never   = urlset.Never
)

// Image is an <image:image> of the Google image extension.
type Image = urlset.Image

// Video is a <video:video> of the Google video extension; see [urlset.Video].
type Video = urlset.Video

// Restriction is a video's <video:restriction>.
type Restriction = urlset.Restriction

// Platform is a video's <video:platform>.
type Platform = urlset.Platform

// Price is a video's <video:price>.
type Price = urlset.Price

// News is a <news:news> of the Google News extension. A news sitemap should
// hold only articles from the last two days, at most 1,000 per file: give
// news sections a PageSize of 1,000 or less.
type News = urlset.News

// Alternate is an <xhtml:link rel="alternate"> hreflang annotation.
type Alternate = urlset.Alternate

// Extensions is a set of sitemap extensions whose namespaces a section's
// <urlset> declares; see [urlset.Extensions].
type Extensions = urlset.Extensions

// The extensions. ExtNone declares none of them, only the sitemap namespace.
const (
	ExtImage      = urlset.ExtImage      // image:image
	ExtVideo      = urlset.ExtVideo      // video:video
	ExtNews       = urlset.ExtNews       // news:news
	ExtAlternates = urlset.ExtAlternates // xhtml:link hreflang alternates
	ExtNone       = urlset.ExtNone       // no extension namespace at all

	extAll = urlset.ExtAll
)

// Protocol limits of one sitemap or index file.
const (
	MaxURLs  = urlset.MaxURLs  // <url> entries in one sitemap, <sitemap> entries in one index
	MaxBytes = urlset.MaxBytes // uncompressed bytes of one file
)

// ErrPageFull is reported for a URL that was not written because writing
// it would have taken the file past 52,428,800 bytes; see [urlset.ErrPageFull].
var ErrPageFull = urlset.ErrPageFull

// ErrElementDropped matches, with errors.Is, an *InvalidURLError whose URL
// was written without the element that broke a rule (its Dropped field).
// Such errors reach Config.OnNotice, not OnReject: the URL is in the file.
var ErrElementDropped = urlset.ErrElementDropped

// ErrSelfLinkAdded is reported (to Config.OnNotice, and logged at info) for
// a URL that WAS written, with one more hreflang alternate than its Source
// gave: the link {URL.Hreflang, URL.Loc} was added.
var ErrSelfLinkAdded = urlset.ErrSelfLinkAdded

// InvalidURLError reports a URL that breaks a protocol rule: skipped
// (reported to Config.OnReject), or written without the element at fault
// (Dropped names it, reported to Config.OnNotice); see [urlset.InvalidURLError].
type InvalidURLError = urlset.InvalidURLError
