// Package limits holds the limits of the sitemap extensions (Google's
// image, video and news sitemaps), so that the encoder, the checker and
// the SQL loaders say each one once. The limits of the protocol itself
// are urlset.MaxURLs and urlset.MaxBytes.
package limits

import "time"

const (
	Images        = 1000                // <image:image> elements in one <url>
	VideoTitle    = 100                 // characters of a video:title
	VideoDesc     = 2048                // characters of a video:description
	VideoCategory = 256                 // characters of a video:category
	VideoTags     = 32                  // video:tag elements in one video
	VideoDuration = 28800 * time.Second // the longest video:duration, 8 hours
	StockTickers  = 5                   // news:stock_tickers in one news entry
)
