package sitemap

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestBuildFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		onURL func(ctx context.Context, page, i int64) error
	}{
		{"error at once", func(context.Context, int64, int64) error { return errors.New("db down") }},
		{"error halfway", func(_ context.Context, _, i int64) error {
			if i == 5 {
				return errors.New("connection reset")
			}
			return nil
		}},
		{"panic", func(_ context.Context, _, i int64) error {
			if i == 3 {
				panic("boom")
			}
			return nil
		}},
		{"stall past the timeout", func(ctx context.Context, _, i int64) error {
			if i == 2 {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newFake(10, 10)
			src.onURL = tc.onURL
			var logs bytes.Buffer
			clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			sm := newTestSitemap(t, Config{BuildTimeout: 50 * time.Millisecond, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
				Section{Source: src, PageSize: 10})
			for i := range 3 {
				if i == 2 {
					waitFor(t, func() bool { return sm.Stats().BuildErrors == 1 }) // the first build ended
					clk.Add(61 * time.Second)                                      // past RetryAfter: one more build is tried
				}
				w := get(sm, "/sitemap-1.xml.gz")
				if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" {
					t.Fatalf("status %d Retry-After %q", w.Code, w.Header().Get("Retry-After"))
				}
				for _, h := range []string{"Etag", "Last-Modified", "Cache-Control"} {
					if w.Header().Get(h) != "" {
						t.Errorf("503 carries %s", h)
					}
				}
				if strings.Contains(w.Body.String(), "urlset") || strings.Contains(w.Body.String(), "boom") {
					t.Errorf("503 body leaks: %q", w.Body)
				}
			}
			// A request may give up (BuildTimeout) just before its build
			// fails: wait for the builds to end.
			waitFor(t, func() bool { return sm.Stats().BuildErrors == 2 })
			// The second request came within RetryAfter of the failure: 503
			// at once, without a build. The third, after it, builds again.
			if got := src.urlsCalls.Load(); got != 2 {
				t.Errorf("source read %d times, want 2: a failure must not be cached, nor retried before RetryAfter", got)
			}
			if _, ok := cachedEntry(sm, pageKey(0, 1)); ok {
				t.Error("a failed page was cached")
			}
			if n := strings.Count(logs.String(), "build failed"); n != 2 {
				t.Errorf("%d failures logged, want 2 (one a build):\n%s", n, logs.String())
			}
			if tc.name == "panic" && !strings.Contains(logs.String(), "goroutine") {
				t.Errorf("a panic is logged without its stack:\n%s", logs.String())
			}
			if st := sm.Stats(); st.BuildErrors != 2 || st.Unavailable != 3 || st.Builds != 1 { // the index
				t.Errorf("stats = %+v", st)
			}
		})
	}
}

// TestUnavailableSaysWhy: with no Logger, a failing Source shows in the
// default log (slog.Default), and the 503 says why without the Source's
// error text: it names the failure by a reference and a time that its log
// line carries, also while the failure holds (RetryAfter).
func TestUnavailableSaysWhy(t *testing.T) {
	var logged testkit.SyncBuffer
	was := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(was)
	src := newFake(20, 10)
	const secret = "dial tcp db.internal:5432: password authentication failed for user shop"
	src.onURL = func(context.Context, int64, int64) error { return errors.New(secret) }
	sm, err := New(Config{BaseURL: "https://example.com", RetryAfter: time.Minute}, Section{Name: "p", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	w := get(sm, "/sitemap-p-1.xml")
	body := w.Body.String()
	if w.Code != http.StatusServiceUnavailable || strings.Contains(body, "db.internal") || strings.Contains(body, "password") {
		t.Fatalf("%d %q: want 503 without the Source's error", w.Code, body)
	}
	_, ref, ok := strings.Cut(body, "(failure ")
	ref, _, _ = strings.Cut(ref, " ")
	if !ok || len(ref) != 8 || !strings.Contains(body, "the build of sitemap-p-1.xml.gz failed") {
		t.Fatalf("503 body %q names no failure", body)
	}
	log := logged.String()
	if !strings.Contains(log, `msg="sitemap: build failed"`) || !strings.Contains(log, "failure="+ref) || !strings.Contains(log, secret) {
		t.Errorf("the default log has no line with failure=%s and the cause:\n%s", ref, log)
	}
	// Within RetryAfter, the same failure, named the same.
	w = get(sm, "/sitemap-p-1.xml")
	if body := w.Body.String(); w.Code != http.StatusServiceUnavailable || !strings.Contains(body, "the last build of sitemap-p-1.xml.gz failed (failure "+ref+" at ") ||
		strings.Contains(body, "db.internal") {
		t.Errorf("within RetryAfter: %d %q, want 503 naming failure %s", w.Code, body, ref)
	}
	if n := strings.Count(logged.String(), "sitemap: build failed"); n != 1 {
		t.Errorf("%d log lines of the failure, want 1", n)
	}
}

// TestUnavailableText: each cause of a 503 gets its own words, none of
// them the cause's own text.
func TestUnavailableText(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&failureError{ref: "0123abcd", file: "sitemap_index.xml", at: at, err: errors.New("secret")},
			"the build of sitemap_index.xml failed (failure 0123abcd at 2026-01-02T03:04:05Z; the server's log has the cause)"},
		{&failureError{ref: "0123abcd", file: "sitemap-2.xml.gz", at: at, err: errBackoff},
			"the last build of sitemap-2.xml.gz failed (failure 0123abcd at 2026-01-02T03:04:05Z; the server's log has the cause); it is retried after 1m0s"},
		{errBackoff, "its last build failed; it is retried after 1m0s"},
		{errWaitTimeout, "its build takes longer than the build timeout"},
		{errBusy, "too many requests are waiting for builds"},
		{errClosed, "the server is shutting down"},
		{errors.New("secret"), "it could not be built"},
	} {
		if got := unavailableText(tc.err, time.Minute); got != "sitemap temporarily unavailable: "+tc.want {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
	}
}
