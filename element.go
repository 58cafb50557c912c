package sitemap

import (
	"time"

	"github.com/freshmap/sitemap/internal/limits"
)

// appendURL builds one <url> element, checking every rule as it goes.
func (e *encoder) appendURL(b []byte, u *URL) ([]byte, error) {
	var err error
	b = append(b, "<url><loc>"...)
	locStart := len(b)
	if b, err = e.appendLoc(b, "loc", u.Loc, u.Loc, true); err != nil {
		return b, err
	}
	loc := b[locStart:] // later appends never write over it
	if u.LastMod.IsZero() {
		b = append(b, "</loc>"...)
	} else {
		if !validYear(u.LastMod) {
			return b, invalid(u, "lastmod", errYear)
		}
		b = append(b, "</loc><lastmod>"...)
		b = e.dates.append(b, u.LastMod, u.LastModDateOnly)
		b = append(b, "</lastmod>"...)
	}
	if u.ChangeFreq != "" {
		switch u.ChangeFreq {
		case Always, Hourly, Daily, Weekly, Monthly, Yearly, Never:
		default:
			return b, invalid(u, "changefreq", errChangeFreq)
		}
		b = append(b, "<changefreq>"...)
		b = append(b, u.ChangeFreq...)
		b = append(b, "</changefreq>"...)
	}
	if u.Priority != nil {
		p := *u.Priority
		if !(p >= 0 && p <= 1) { // also false for NaN
			return b, invalid(u, "priority", errPriority)
		}
		b = append(b, "<priority>"...)
		b = appendDecimal(b, p)
		b = append(b, "</priority>"...)
	}
	if len(u.Images) > 0 {
		if b, err = e.appendImages(b, u); err != nil {
			return b, err
		}
	}
	for i := range u.Videos {
		if b, err = e.appendVideo(b, u, &u.Videos[i]); err != nil {
			return b, err
		}
	}
	if u.News != nil {
		if b, err = e.appendNews(b, u, u.News); err != nil {
			return b, err
		}
	}
	if len(u.Alternates) > 0 {
		if b, err = e.appendAlternates(b, u, loc); err != nil {
			return b, err
		}
	}
	return append(b, "</url>\n"...), nil
}

// appendLoc appends s as a percent-encoded, XML-escaped URI. The rules of
// an entry's own location (under the base URL, no dot segment, at least 12
// characters) apply only when underBase is set: images, videos and players
// may live on other hosts.
func (e *encoder) appendLoc(b []byte, field, loc, s string, underBase bool) ([]byte, error) {
	var err error
	if underBase {
		b, err = appendPageURI(b, s, e.base, true)
	} else {
		b, err = appendURIRules(b, s, "", e.origin, true, false)
	}
	if err != nil {
		return b, &InvalidURLError{Loc: loc, Field: field, Err: err}
	}
	return b, nil
}

func (e *encoder) appendImages(b []byte, u *URL) ([]byte, error) {
	if e.ext&ExtImage == 0 {
		return b, invalid(u, "image", errUndeclared)
	}
	if len(u.Images) > limits.Images {
		return b, invalid(u, "image", errTooMany)
	}
	var err error
	for i := range u.Images {
		img := &u.Images[i]
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
		b = append(b, "</image:image>"...)
	}
	return b, nil
}

// appendElem writes <name>escaped s</name>, or nothing when s is "".
func appendElem(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = appendEscaped(b, s)
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
	b = appendW3CTime(b, t, false)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}
