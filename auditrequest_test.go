package sitemap

import (
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/internal/testkit"
)

// auditTestSitemap is a Sitemap auditing the one URL /page with app,
// logging to logs.
func auditTestSitemap(t *testing.T, app http.Handler, logs *testkit.SyncBuffer, buildTimeout time.Duration, audit Audit) *Sitemap {
	t.Helper()
	audit.Share = 1
	sm, err := New(Config{BaseURL: "https://example.com", BuildTimeout: buildTimeout, Audit: &audit,
		Logger: slog.New(slog.NewTextHandler(logs, nil))}, Section{Source: listSource(urlsAt("/page")...)})
	if err != nil {
		t.Fatal(err)
	}
	get(sm.Handler(app), "/sitemap-1.xml.gz")
	return sm
}

// closeWithin runs sm.Close and fails t unless it returns within bound
// and some slack for a busy machine.
func closeWithin(t *testing.T, sm *Sitemap, bound time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { sm.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound + 5*time.Second):
		t.Fatalf("Close did not return within %v", bound)
	}
}

// TestAuditHungPage: a page handler that ignores its context and never
// returns holds Close at most BuildTimeout, even with a longer
// Audit.Timeout; Close says so; when the handler ends at last, with a
// panic, the process lives and its goroutine is gone.
func TestAuditHungPage(t *testing.T) {
	before := runtime.NumGoroutine()
	var logs testkit.SyncBuffer
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" {
			close(entered)
			<-release // ignores its context
			panic("planted, after Close")
		}
	})
	sm := auditTestSitemap(t, app, &logs, 200*time.Millisecond, Audit{Timeout: time.Hour})
	<-entered
	closeWithin(t, sm, 200*time.Millisecond)
	if !strings.Contains(logs.String(), "Close gave up waiting for the audit's request") {
		t.Errorf("log:\n%s", logs.String())
	}
	once.Do(func() { close(release) }) // the handler panics now: recovered
	waitGoroutines(t, before)
}

// TestAuditEndlessPage: a page that streams without end, whatever a
// write returns and whatever its context says, is read up to HeadBytes
// and checked; its writes fail from then on; Close, under way or later,
// returns within BuildTimeout.
func TestAuditEndlessPage(t *testing.T) {
	before := runtime.NumGoroutine()
	var logs testkit.SyncBuffer
	var wrote, failed atomic.Int64
	stop := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(stop) }) })
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><html><head><meta name="robots" content="noindex"></head><body>`))
		chunk := []byte(strings.Repeat("<p>more</p>", 100))
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				failed.Add(1)
				time.Sleep(time.Millisecond) // ignores the error and its context, but not the CPU
				continue
			}
			wrote.Add(1)
		}
	})
	sm := auditTestSitemap(t, app, &logs, 200*time.Millisecond, Audit{Timeout: 100 * time.Millisecond})
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	f := sm.Audit().Files[0]
	if f.Checked != 1 || f.Findings[pagecheck.Noindex] != 1 {
		t.Errorf("the endless page's audit: %+v, want its noindex found", f)
	}
	waitFor(t, func() bool { return failed.Load() > 0 })
	n := wrote.Load()
	if max := int64(pagecheck.HeadBytes/len(strings.Repeat("<p>more</p>", 100))) + 1; n > max {
		t.Errorf("%d writes taken, want at most %d (HeadBytes)", n, max)
	}
	closeWithin(t, sm, 200*time.Millisecond)
	if got := wrote.Load(); got != n {
		t.Errorf("%d writes taken after the limit", got-n)
	}
	once.Do(func() { close(stop) })
	waitGoroutines(t, before)
}

// TestAuditWritesUntilFailure: a page handler that ignores its context
// and writes slowly until a write fails, never reaching HeadBytes, stops
// at its first write after Close, and Close returns at once, long before
// Audit.Timeout.
func TestAuditWritesUntilFailure(t *testing.T) {
	before := runtime.NumGoroutine()
	var logs testkit.SyncBuffer
	entered, returned := make(chan struct{}), make(chan struct{})
	var afterClose atomic.Bool
	var lateWrites atomic.Int64
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			return
		}
		defer close(returned)
		close(entered)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			if afterClose.Load() {
				lateWrites.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	})
	sm := auditTestSitemap(t, app, &logs, time.Hour, Audit{Timeout: time.Hour})
	<-entered
	start := time.Now()
	sm.Close()
	afterClose.Store(true)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case <-returned:
	default:
		t.Error("Close returned before the handler whose writes it failed")
	}
	if n := lateWrites.Load(); n != 0 {
		t.Errorf("%d writes taken after Close", n)
	}
	if strings.Contains(logs.String(), "Close gave up") {
		t.Errorf("Close gave up on a handler that stops when a write fails:\n%s", logs.String())
	}
	waitGoroutines(t, before)
}

// TestAuditStuckPages: pages whose handlers hang past Audit.Timeout are
// each an error finding, and at most audit.Stuck of them are left
// running: the audit requests nothing more until one ends.
func TestAuditStuckPages(t *testing.T) {
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	var inside, most atomic.Int64
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return
		}
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release // ignores its context
	})
	paths := make([]string, 10)
	for i := range paths {
		paths[i] = "/hang/" + string(rune('a'+i))
	}
	sm, err := New(Config{BaseURL: "https://example.com", Audit: &Audit{Share: 1, Timeout: 20 * time.Millisecond}},
		Section{Source: listSource(urlsAt(paths...)...)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	get(sm.Handler(app), "/sitemap-1.xml.gz")
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	r := sm.Audit()
	if r.Checked != audit.Stuck || r.Skipped != int64(len(paths)-audit.Stuck) || r.Findings[pagecheck.Error] != audit.Stuck {
		t.Errorf("checked %d, skipped %d, errors %d; want %d, %d, %d", r.Checked, r.Skipped, r.Findings[pagecheck.Error],
			audit.Stuck, len(paths)-audit.Stuck, audit.Stuck)
	}
	if m := most.Load(); m > audit.Stuck {
		t.Errorf("%d handlers hung at once, want at most %d", m, audit.Stuck)
	}
	if ex := r.Files[0].Examples; len(ex) == 0 || !strings.Contains(ex[0].Detail, "no answer within 20ms") {
		t.Errorf("examples %+v", ex)
	}
	once.Do(func() { close(release) })
	waitFor(t, func() bool { return sm.rep.audit.Running() == 0 })
	sm.Close()
	waitGoroutines(t, before)
}
