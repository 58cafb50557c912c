package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

// Every error says "sitemap: " once: New's, and a failed build's as its
// log line reports it.
func TestErrorsSaySitemapOnce(t *testing.T) {
	for _, cfg := range []Config{
		{BaseURL: ""},
		{BaseURL: "ftp://example.com"},
		{BaseURL: "https://example.com", FeedAuthor: "a\nb", FeedEntries: 1},
		{BaseURL: "https://example.com", TTL: -1},
		{BaseURL: "https://example.com", IndexNow: &IndexNow{Key: "short"}},
		{BaseURL: "https://example.com", IndexNow: &IndexNow{Key: "0123456789", Endpoints: []string{"x"}}},
	} {
		_, err := New(cfg, Section{Source: newFake(1, 1)})
		if err == nil || !errors.Is(err, ErrConfig) || strings.Count(err.Error(), "sitemap:") != 1 {
			t.Errorf("New: %v; want one \"sitemap:\" and ErrConfig", err)
		}
	}
	_, err := New(Config{BaseURL: "https://example.com"}, Section{Name: "Bad", Source: newFake(1, 1)})
	if err == nil || strings.Count(err.Error(), "sitemap:") != 1 {
		t.Errorf("New: %v", err)
	}
	var logs testkit.SyncBuffer
	src := newFake(3, 3)
	src.onURL = func(context.Context, int64, int64) error { return errors.New("boom") }
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com", Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: src})
	get(sm, "/sitemap-1.xml.gz")
	want := `err="building sitemap-1.xml.gz: reading page 1: boom"`
	if log := logs.String(); !strings.Contains(log, want) || strings.Count(log, "sitemap:") != strings.Count(log, "msg=") {
		t.Errorf("log:\n%s\nwant %s, and \"sitemap:\" once a line", log, want)
	}
}
