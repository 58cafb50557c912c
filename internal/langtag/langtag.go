// Package langtag checks the syntax of BCP 47 language tags, as hreflang
// takes them: the encoder (which refuses a malformed one) and the checker
// (which reports it) share it.
package langtag

import "strings"

// Valid reports whether s is a well-formed BCP 47 language tag
// (RFC 5646, section 2.1, compared without regard to case), such as "en",
// "de-AT", "zh-Hant-TW", "es-419" or "sr-Latn", or "x-default", the
// hreflang of the fallback page (a private-use tag). It checks the syntax
// only, not the registry: "qq-ZZ" is well-formed. Every well-formed tag
// also has the xs:language form the schema asks for.
//
//	langtag    = language ["-" script] ["-" region] *("-" variant)
//	             *("-" extension) ["-" privateuse]
//	language   = 2*3ALPHA ["-" extlang] / 4ALPHA / 5*8ALPHA
//	extlang    = 3ALPHA *2("-" 3ALPHA)
//	script     = 4ALPHA
//	region     = 2ALPHA / 3DIGIT
//	variant    = 5*8alphanum / (DIGIT 3alphanum)
//	extension  = singleton 1*("-" (2*8alphanum)), singleton any alphanum but x
//	privateuse = "x" 1*("-" (1*8alphanum))
func Valid(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	if isGrandfathered(s) {
		return true
	}
	for p := range strings.SplitSeq(s, "-") { // no allocation
		if len(p) == 0 || len(p) > 8 || !isAlnum(p) {
			return false
		}
	}
	t := subtags{rest: s}
	p := t.next()
	if isSingleton(p, 'x') {
		return t.privateUse()
	}
	if !isAlpha(p) || len(p) < 2 {
		return false // language
	}
	lang := p
	p = t.next()
	if len(lang) <= 3 { // a language of 2 or 3 letters may have extlangs
		for n := 0; n < 3 && len(p) == 3 && isAlpha(p); n++ {
			p = t.next()
		}
	}
	if len(p) == 4 && isAlpha(p) { // script
		p = t.next()
	}
	if len(p) == 2 && isAlpha(p) || len(p) == 3 && isDigits(p) { // region
		p = t.next()
	}
	for len(p) >= 5 || len(p) == 4 && isDigit(p[0]) { // variants
		p = t.next()
	}
	for len(p) == 1 && !isSingleton(p, 'x') { // extensions
		n := 0
		for p = t.next(); len(p) >= 2; p = t.next() {
			n++
		}
		if n == 0 {
			return false
		}
	}
	if isSingleton(p, 'x') {
		return t.privateUse()
	}
	return p == "" && t.rest == ""
}

// subtags walks the subtags of a tag whose subtags are known to be
// non-empty; next returns "" at the end.
type subtags struct{ rest string }

func (t *subtags) next() string {
	p, rest, _ := strings.Cut(t.rest, "-")
	t.rest = rest
	return p
}

// privateUse reports whether the subtags after "x" are a private use
// sequence: at least one, each of 1 to 8 alphanumerics (already checked).
func (t *subtags) privateUse() bool { return t.rest != "" }

// isSingleton reports whether p is the one-character subtag c, in any case.
func isSingleton(p string, c byte) bool { return len(p) == 1 && lower(p[0]) == c }

// grandfathered are the irregular tags RFC 5646 keeps although they do
// not fit the grammar; its regular grandfathered tags (such as
// "zh-min-nan") fit it.
var grandfathered = [...]string{
	"en-GB-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon", "i-lux", "i-mingo",
	"i-navajo", "i-pwn", "i-tao", "i-tay", "i-tsu", "sgn-BE-FR", "sgn-BE-NL", "sgn-CH-DE",
}

func isGrandfathered(s string) bool {
	for _, g := range grandfathered {
		if len(s) == len(g) && strings.EqualFold(s, g) { // most have another length: no call

			return true
		}
	}
	return false
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := lower(s[i]); c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := lower(s[i]); !(c >= 'a' && c <= 'z' || isDigit(c)) {
			return false
		}
	}
	return true
}

// lower lower-cases an ASCII letter.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
