package audit

import (
	"testing"
	"time"
)

// TestAuditOffSite: a listed URL on another host is never requested.
func TestAuditOffSite(t *testing.T) {
	a, err := New(Options[int]{Base: "https://example.com/shop/"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(time.Now().Add(time.Second))
	for loc, want := range map[string]bool{
		"https://example.com/shop/a":      true,
		"https://example.com":             true,
		"https://example.com?x":           true,
		"https://example.com.evil.net/":   false,
		"http://example.com/shop/a":       false,
		"https://example.com:8443/shop/a": false,
		"https://other.example/shop/a":    false,
		"https://example.com@evil.net/x":  false,
	} {
		if got := a.onSite(loc); got != want {
			t.Errorf("onSite(%q) = %v, want %v", loc, got, want)
		}
	}
}
