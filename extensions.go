package sitemap

// Extensions is a set of sitemap extensions whose namespaces a section's
// <urlset> declares. A URL carrying data of an undeclared extension is
// written without it, and reported (ErrElementDropped). The zero value
// declares image, video and xhtml (hreflang): news must be asked for,
// because a news sitemap has rules of its own (at most 1,000 URLs a file,
// only articles of the last two days).
type Extensions uint8

// The extensions. ExtNone declares none of them, only the sitemap namespace.
const (
	ExtImage      Extensions = 1 << iota // image:image
	ExtVideo                             // video:video
	ExtNews                              // news:news
	ExtAlternates                        // xhtml:link hreflang alternates
	ExtNone                              // no extension namespace at all

	extAll = ExtImage | ExtVideo | ExtNews | ExtAlternates
)

func (x Extensions) normalize() Extensions {
	switch {
	case x == 0:
		return ExtImage | ExtVideo | ExtAlternates
	case x&ExtNone != 0:
		return 0
	}
	return x & extAll
}
