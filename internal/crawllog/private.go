package crawllog

import "strings"

// What VerifiedOnly answers carry. A file given only to verified
// crawlers must not be kept by a shared cache (a CDN in front): it would serve the copy a verified crawler
// got to anyone who asks next. A Vary could not name what decides (the
// address, checked against ranges), so the response is private.

// PrivateCacheControl returns cc (a Cache-Control value; "" for none)
// made private: its directives for shared caches only ("public",
// "s-maxage") removed, and "private" added unless it or "no-store" is
// there. A directive's quoted value may hold commas.
func PrivateCacheControl(cc string) string {
	var kept []string
	private := false
	for _, d := range splitDirectives(cc) {
		name, _, _ := strings.Cut(d, "=")
		switch name = strings.ToLower(strings.TrimSpace(name)); name {
		case "public", "s-maxage":
			continue
		case "private", "no-store":
			private = true
		}
		kept = append(kept, d)
	}
	if !private {
		kept = append([]string{"private"}, kept...)
	}
	return strings.Join(kept, ", ")
}

// splitDirectives splits a Cache-Control value at the commas outside
// quoted strings, each directive trimmed; empty ones are dropped.
func splitDirectives(cc string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i <= len(cc); i++ {
		switch {
		case i+1 < len(cc) && cc[i] == '\\' && quoted:
			i++ // an escaped character
		case i < len(cc) && cc[i] == '"':
			quoted = !quoted
		case i == len(cc) || cc[i] == ',' && !quoted:
			if d := strings.TrimSpace(cc[start:min(i, len(cc))]); d != "" {
				out = append(out, d)
			}
			start = i + 1
		}
	}
	return out
}
