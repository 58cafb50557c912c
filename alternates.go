package sitemap

// appendAlternates writes the hreflang <xhtml:link> elements.
func (e *encoder) appendAlternates(b []byte, u *URL) ([]byte, error) {
	if e.ext&ExtAlternates == 0 {
		return b, invalid(u, "xhtml:link", errUndeclared)
	}
	var err error
	for i := range u.Alternates {
		a := &u.Alternates[i]
		if !isLanguageTag(a.Hreflang) {
			return b, invalid(u, "xhtml:link.hreflang", errValue)
		}
		b = append(b, `<xhtml:link rel="alternate" hreflang="`...)
		b = append(b, a.Hreflang...)
		b = append(b, `" href="`...)
		if b, err = e.appendLoc(b, "xhtml:link.href", u.Loc, a.Href, false); err != nil {
			return b, err
		}
		b = append(b, `"/>`...)
	}
	return b, nil
}

// isLanguageTag accepts the xs:language form that hreflang takes:
// [a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*, which includes "x-default".
func isLanguageTag(s string) bool {
	part, first := 0, true
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '-' {
			if part < 1 || part > 8 {
				return false
			}
			part, first = 0, false
			continue
		}
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(!first && c >= '0' && c <= '9') {
			return false
		}
		part++
	}
	return true
}
