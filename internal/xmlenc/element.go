package xmlenc

import (
	"errors"
	"time"

	"github.com/freshmap/sitemap/internal/limits"
	"github.com/freshmap/sitemap/urlset"
)

// appendURL builds one <url> element, checking every rule as it goes.
// Only a bad loc, or a bad News in a section that declares news, skips
// the URL: it returns an *InvalidURLError, and the caller rolls the entry
// back. Any other element that breaks a rule is left out whole (its bytes
// rolled back here) and recorded in e.notes with its Dropped set
// (drop); the URL is written without it.
//
// What is left out is the smallest whole element the broken rule belongs
// to, never a part of one: a <video:video> without its restriction, or an
// <image:image> without its license, would say something false.
//  1. lastmod, changefreq, priority: that element (TestStandardFields);
//     the section's default is written only for a URL that has no value
//     of its own (TestSectionDefaults).
//  2. An image: that <image:image>; past the 1,000th written, the rest,
//     reported once (TestImageRules, TestOneBadElement).
//  3. A video: that <video:video> (TestVideoRules, TestOneBadElement).
//  4. News: in a section that declares ExtNews, the URL (an article is
//     why a URL is in a news sitemap, and an old one must leave it); in
//     one that does not, the <news:news> as undeclared (TestNewsRules,
//     TestUndeclaredExtension).
//  5. An alternate: that <xhtml:link>; and all of them when none of those
//     kept links to the page and no self link can be added
//     (appendAlternates, TestAlternateRules, TestOneBadElement).
//  6. An undeclared extension: all its elements, reported once.
func (e *Encoder) appendURL(b []byte, u *urlset.URL) ([]byte, error) {
	var err error
	b = append(b, "<url><loc>"...)
	locStart := len(b)
	if plain := plainPrefix(u.Loc, e.base); plain == len(u.Loc) { // AppendPageURI, without its call
		b = append(b, u.Loc...)
	} else if b, err = appendURIRules(b, u.Loc, e.base, "", plain, true, true); err != nil { // appendLoc's rules
		return b, &urlset.InvalidURLError{Loc: u.Loc, Field: "loc", Err: err}
	}
	locEnd := len(b) // the loc as written is b[locStart:locEnd], sliced only if an alternate needs it
	unix := u.LastMod.Unix()
	zero := unix == unixYear1 && u.LastMod.Nanosecond() == 0 // u.LastMod.IsZero(), from its seconds
	if validUnixYear(unix) && !zero {
		b = append(b, "</loc><lastmod>"...)
		b = e.dates.append(b, unix, u.LastModDateOnly)
		b = append(b, "</lastmod>"...)
	} else {
		b = append(b, "</loc>"...)
		if !zero {
			e.drop(Invalid(u, "lastmod", ErrYear), "lastmod")
		}
	}
	if u.ChangeFreq != "" {
		switch u.ChangeFreq {
		case urlset.Always, urlset.Hourly, urlset.Daily, urlset.Weekly, urlset.Monthly, urlset.Yearly, urlset.Never:
			b = append(b, "<changefreq>"...)
			b = append(b, u.ChangeFreq...)
			b = append(b, "</changefreq>"...)
		default:
			e.drop(Invalid(u, "changefreq", ErrChangeFreq), "changefreq")
		}
	} else if e.ChangeFreq != "" { // the section's default, checked by sitemap.New
		b = append(b, "<changefreq>"...)
		b = append(b, e.ChangeFreq...)
		b = append(b, "</changefreq>"...)
	}
	if p := u.Priority; p != nil || e.Priority != nil {
		if p == nil {
			p = e.Priority // the section's default, checked by sitemap.New
		}
		if *p >= 0 && *p <= 1 { // false for NaN
			b = append(b, "<priority>"...)
			b = appendDecimal(b, *p)
			b = append(b, "</priority>"...)
		} else {
			e.drop(Invalid(u, "priority", ErrPriority), "priority")
		}
	}
	if len(u.Images) > 0 {
		b = e.appendImages(b, u)
	}
	if len(u.Videos) > 0 {
		b = e.appendVideos(b, u)
	}
	if u.News != nil {
		if b, err = e.appendNews(b, u, u.News); err != nil {
			return b, err
		}
	}
	if len(u.Alternates) > 0 {
		b = e.appendAlternates(b, u, b[locStart:locEnd:locEnd]) // later appends never write over it
	}
	return append(b, "</url>\n"...), nil
}

// drop records err, an *InvalidURLError, for an element left out of the
// URL being written: its Dropped is set to element, and it is reported as
// a note of the URL if it is written (Notes).
func (e *Encoder) drop(err error, element string) {
	if bad := (*urlset.InvalidURLError)(nil); errors.As(err, &bad) {
		bad.Dropped = element
	}
	e.notes = append(e.notes, err)
}

// lastmod is the lastmod of u that appendURL writes, and its Unix
// seconds: zero when it has none or drops it.
func lastmod(u *urlset.URL) (time.Time, int64) {
	if unix := u.LastMod.Unix(); validUnixYear(unix) {
		return u.LastMod, unix
	}
	return time.Time{}, unixYear1
}

// appendLoc appends s as a percent-encoded, XML-escaped URI. The rules of
// an entry's own location (under the base URL, no dot segment, at least 12
// characters) apply only when underBase is set: images, videos and players
// may live on other hosts.
func (e *Encoder) appendLoc(b []byte, field, loc, s string, underBase bool) ([]byte, error) {
	var err error
	if underBase {
		b, err = AppendPageURI(b, s, e.base, true)
	} else {
		b, err = appendURIRules(b, s, "", e.origin, 0, true, false)
	}
	if err != nil {
		return b, &urlset.InvalidURLError{Loc: loc, Field: field, Err: err}
	}
	return b, nil
}

// appendImages writes the images of u: each valid one, up to 1,000. An
// invalid image is dropped alone; those past the 1,000th written are
// dropped with one report.
func (e *Encoder) appendImages(b []byte, u *urlset.URL) []byte {
	if e.ext&urlset.ExtImage == 0 {
		e.drop(Invalid(u, "image", ErrUndeclared), "image:image")
		return b
	}
	written := 0
	for i := range u.Images {
		if written == limits.Images {
			e.drop(Invalid(u, "image", ErrTooMany), "image:image")
			break
		}
		mark := len(b)
		var err error
		if b, err = e.appendImage(b, u, &u.Images[i]); err != nil {
			b = b[:mark]
			e.drop(err, "image:image")
			continue
		}
		written++
	}
	return b
}

// appendImage writes one <image:image>, or returns the *InvalidURLError
// of its first bad field.
func (e *Encoder) appendImage(b []byte, u *urlset.URL, img *urlset.Image) ([]byte, error) {
	var err error
	b = append(b, "<image:image><image:loc>"...)
	if b, err = e.appendLoc(b, "image.loc", u.Loc, img.Loc, false); err != nil {
		return b, err
	}
	b = append(b, "</image:loc>"...)
	b = appendElem(b, "image:caption", img.Caption)
	b = appendElem(b, "image:geo_location", img.GeoLocation)
	b = appendElem(b, "image:title", img.Title)
	if img.License != "" {
		b = append(b, "<image:license>"...)
		if b, err = e.appendLoc(b, "image.license", u.Loc, img.License, false); err != nil {
			return b, err
		}
		b = append(b, "</image:license>"...)
	}
	return append(b, "</image:image>"...), nil
}

// appendElem writes <name>escaped s</name>, or nothing when s is "".
func appendElem(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = AppendEscaped(b, s)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

func appendTimeElem(b []byte, name string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = AppendW3CTime(b, t, false)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}
