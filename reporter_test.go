package sitemap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/freshmap/sitemap/internal/tally"
	"github.com/freshmap/sitemap/internal/xmlenc"
)

// logRecords is a slog.Handler that keeps every record.
type logRecords struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecords) WithGroup(string) slog.Handler            { return h }

func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

// at returns the records of level l whose section attribute is section,
// each as a map of its attributes (with "msg").
func (h *logRecords) at(l slog.Level, section string) []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.records {
		if r.Level != l {
			continue
		}
		attrs := map[string]string{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		if attrs["section"] == section {
			out = append(out, attrs)
		}
	}
	return out
}

// TestOneLogLinePerBuild: 1,000 URLs skipped, 1,000 written without an
// element and 1,000 corrected in one build of each of two sections make
// one warning and one info line per section, with the counts by reason and
// three examples; the hooks and the counters still see every one.
func TestOneLogLinePerBuild(t *testing.T) {
	const n = 1000
	urls := func(sec string) []URL {
		var urls []URL
		for i := range n {
			p := fmt.Sprintf("https://example.com/%s/%d", sec, i)
			urls = append(urls,
				URL{Loc: "https://elsewhere.example/" + sec + "/" + fmt.Sprint(i)},                              // skipped: loc
				URL{Loc: p + "/img", Images: []Image{{Loc: "/relative.jpg"}}},                                   // image dropped
				URL{Loc: p + "/en", Hreflang: "en", Alternates: []Alternate{{Hreflang: "de", Href: p + "/de"}}}, // self link added
			)
		}
		return urls
	}
	var logs logRecords
	var mu sync.Mutex
	rejects, notices := map[string]int{}, map[string]int{}
	count := func(m map[string]int) func(string, int64, string, error) {
		return func(section string, _ int64, _ string, err error) {
			mu.Lock()
			defer mu.Unlock()
			m[section+" "+tally.ReasonOf(err)]++
		}
	}
	sm := newTestSitemap(t, Config{Logger: slog.New(&logs), OnReject: count(rejects), OnNotice: count(notices)},
		Section{Name: "a", Source: FromSlice(urls("a"), 3*n)},
		Section{Name: "b", Source: FromSlice(urls("b"), 3*n)})
	for _, sec := range []string{"a", "b"} {
		if w := get(sm, "/sitemap-"+sec+"-1.xml"); w.Code != 200 || strings.Count(w.Body.String(), "<url>") != 2*n {
			t.Fatalf("section %s: status %d, %d URLs", sec, w.Code, strings.Count(w.Body.String(), "<url>"))
		}
	}
	for _, sec := range []string{"a", "b"} {
		warn := logs.at(slog.LevelWarn, sec)
		if len(warn) != 1 {
			t.Fatalf("section %s: %d warning lines, want 1: %v", sec, len(warn), warn)
		}
		w := warn[0]
		want := "loc: not under the sitemap's base URL: 1000; image.loc: not an absolute http or https URL: 1000"
		if w["skipped"] != "1000" || w["dropped"] != "1000" || w["page"] != "1" || w["reasons"] != want {
			t.Errorf("section %s warning %v, want reasons %q", sec, w, want)
		}
		if got := strings.Count(w["examples"], "; ") + 1; got != tally.MaxExamples || !strings.HasPrefix(w["examples"], `"https://elsewhere.example/`+sec+`/0" (loc: `) {
			t.Errorf("section %s: %d examples %q", sec, got, w["examples"])
		}
		info := logs.at(slog.LevelInfo, sec)
		if len(info) != 1 || info[0]["corrected"] != "1000" || info[0]["reasons"] != "hreflang self link added: 1000" {
			t.Errorf("section %s: info lines %v, want one of 1000 self links", sec, info)
		}
		if rejects[sec+" loc: not under the sitemap's base URL"] != n ||
			notices[sec+" image.loc: not an absolute http or https URL"] != n || notices[sec+" hreflang self link added"] != n {
			t.Errorf("hooks: rejects %v, notices %v", rejects, notices)
		}
		st := sectionStatsOf(t, sm, sec)
		if st.RejectedURLs["loc"] != n || st.DroppedElements["image.loc"] != n {
			t.Errorf("section %s: rejected %v, dropped %v", sec, st.RejectedURLs, st.DroppedElements)
		}
	}
	if st := sm.Stats(); st.RejectedURLs != 2*n || st.DroppedElements != 2*n || st.CorrectedURLs != 4*n {
		t.Errorf("stats: %d rejected, %d dropped, %d corrected", st.RejectedURLs, st.DroppedElements, st.CorrectedURLs)
	}
}

// TestFeedRejectionsOneLine: the URLs a feed skips are logged in one line
// per build too, as page 0.
func TestFeedRejectionsOneLine(t *testing.T) {
	var urls []URL
	for i := range 50 {
		urls = append(urls, URL{Loc: fmt.Sprintf("https://example.com/%d", i)}) // no LastMod: Atom needs one
	}
	var logs logRecords
	rejected := 0
	sm := newTestSitemap(t, Config{FeedEntries: 100, Logger: slog.New(&logs),
		OnReject: func(_ string, page int64, _ string, err error) {
			if page == 0 && errors.Is(err, xmlenc.ErrRequired) {
				rejected++
			}
		}},
		Section{Name: "c", Source: newRecent(append(recentURLs(1), urls...)...)})
	if w := get(sm, "/sitemap-c.atom"); w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	warn := logs.at(slog.LevelWarn, "c")
	if len(warn) != 1 || warn[0]["page"] != "0" || warn[0]["skipped"] != "50" || warn[0]["reasons"] != "lastmod: required: 50" || rejected != 50 {
		t.Errorf("warnings %v, %d rejected", warn, rejected)
	}
}
