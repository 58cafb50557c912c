package check

import "testing"

// TestInvalidRule: parse's value errors map to rules by element path.
func TestInvalidRule(t *testing.T) {
	for path, want := range map[string]string{
		"urlset/url/lastmod":                         "lastmod-format",
		"urlset/url/priority":                        "priority-range",
		"urlset/url/changefreq":                      "changefreq-value",
		"urlset/url/video:video/video:duration":      "video-value",
		"urlset/url/news:news/news:publication_date": "news-value",
		"urlset/url/other:thing":                     "value",
	} {
		if got := invalidRule(path, "bad"); got != want {
			t.Errorf("invalidRule(%q) = %q, want %q", path, got, want)
		}
	}
	if got := invalidRule("urlset/url", "no <loc>"); got != "loc-missing" {
		t.Errorf("no <loc>: %q", got)
	}
}
