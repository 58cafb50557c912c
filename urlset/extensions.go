package urlset

// Extensions is a set of sitemap extensions whose namespaces a <urlset>
// declares (in the sitemap package, a Section's). A URL carrying data of
// an undeclared extension is written without it, and reported
// (ErrElementDropped). The zero value
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

	// ExtAll declares every extension.
	ExtAll = ExtImage | ExtVideo | ExtNews | ExtAlternates
)

// Declared returns the extensions a <urlset> given x declares: the
// image, video and xhtml extensions for the zero value, none for a set
// holding ExtNone, and otherwise x without any bit that names no extension.
func (x Extensions) Declared() Extensions {
	switch {
	case x == 0:
		return ExtImage | ExtVideo | ExtAlternates
	case x&ExtNone != 0:
		return 0
	}
	return x & ExtAll
}
