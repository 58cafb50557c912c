package indexnow

import (
	"strings"
	"testing"
	"time"
)

// A key is 8 to 128 characters of a-z, A-Z, 0-9 and '-', not named like
// a sitemap file; an endpoint is absolute http or https, listed once.
func TestCheck(t *testing.T) {
	ok := []string{DefaultEndpoint}
	for _, c := range []struct {
		key       string
		endpoints []string
		queue     int
		backoff   time.Duration
		want      string // in the error; "" for none
	}{
		{"abcd1234", ok, 0, 0, ""},
		{strings.Repeat("a", 128), ok, 0, 0, ""},
		{"abcd123", ok, 0, 0, "7 characters"},
		{strings.Repeat("a", 129), ok, 0, 0, "129 characters"},
		{"abcd_1234", ok, 0, 0, `'_' at 4`},
		{"sitemap-1234", ok, 0, 0, `starts with "sitemap-"`},
		{"abcd1234", ok, -1, 0, "QueueSize -1"},
		{"abcd1234", ok, 0, -time.Second, "MaxBackoff -1s"},
		{"abcd1234", []string{"ftp://x/indexnow"}, 0, 0, "not an absolute http"},
		{"abcd1234", []string{"/indexnow"}, 0, 0, "not an absolute http"},
		{"abcd1234", []string{DefaultEndpoint, DefaultEndpoint}, 0, 0, "listed twice"},
	} {
		err := Check(c.key, c.endpoints, c.queue, c.backoff)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%q, %q, %d, %v) = %v, want %q", c.key, c.endpoints, c.queue, c.backoff, err, c.want)
		}
	}
}

// The key file is the key at BASE/KEY.txt, with a strong ETag of its own.
func TestNewKeyFile(t *testing.T) {
	a, b := NewKeyFile("/shop/", "abcd1234"), NewKeyFile("/shop/", "abcd1235")
	if a.Path != "/shop/abcd1234.txt" || a.Body != "abcd1234" || len(a.ETag) != 1 || !strings.HasPrefix(a.ETag[0], `"`) {
		t.Errorf("key file %+v", a)
	}
	if a.ETag[0] == b.ETag[0] {
		t.Errorf("two keys, one ETag %s", a.ETag[0])
	}
}
