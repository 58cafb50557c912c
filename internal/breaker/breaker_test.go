package breaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestBreaker(t *testing.T) {
	var logs testkit.SyncBuffer
	clock := testkit.NewClock(time.Unix(1e9, 0))
	b := New(slog.New(slog.NewTextHandler(&logs, nil)), "store unavailable", "store available again")
	b.now = clock.Now
	boom := errors.New("boom")
	// Two calls in flight fail: the breaker opens once, with the shortest cooldown.
	ok1, p1 := b.Allow()
	ok2, p2 := b.Allow()
	if !ok1 || !ok2 || p1 || p2 {
		t.Fatal("a closed breaker refused a call, or called it a probe")
	}
	b.Done(p1, boom)
	b.Done(p2, boom)
	if ok, _ := b.Allow(); ok || !b.IsOpen() {
		t.Fatal("an open breaker let a call through")
	}
	clock.Add(Min)
	ok, probe := b.Allow()
	if !ok || !probe {
		t.Fatal("no probe after the cooldown")
	}
	if ok, _ := b.Allow(); ok {
		t.Fatal("a second call while the probe runs")
	}
	b.Done(probe, boom) // the probe fails: twice the cooldown
	clock.Add(Min)
	if ok, _ := b.Allow(); ok {
		t.Fatal("the cooldown did not double after a failed probe")
	}
	clock.Add(Min)
	ok, probe = b.Allow()
	if !ok || !probe {
		t.Fatal("no probe after the doubled cooldown")
	}
	b.Done(probe, nil)
	if b.IsOpen() {
		t.Fatal("a good probe did not close the breaker")
	}
	for range 20 { // an outage that lasts: the cooldown stops at Max
		ok, probe := b.Allow()
		if ok {
			b.Done(probe, boom)
		}
		clock.Add(Max)
	}
	if b.cooldown != Max {
		t.Errorf("cooldown %v, want %v", b.cooldown, Max)
	}
	if got := strings.Count(logs.String(), "store unavailable"); got != 2 {
		t.Errorf("%d 'unavailable' lines for two outages, want 2:\n%s", got, logs.String())
	}
	if got := strings.Count(logs.String(), "available again"); got != 1 {
		t.Errorf("%d 'available again' lines, want 1", got)
	}
}

// TestBreakerSlowIsNotDown: calls that run out of time open the breaker
// only Slow in a row; a success between them starts the count again; a
// refusal opens it at once.
func TestBreakerSlowIsNotDown(t *testing.T) {
	b := New(slog.New(slog.DiscardHandler), "down", "up")
	late := fmt.Errorf("redis get: %w", context.DeadlineExceeded)
	call := func(err error) {
		t.Helper()
		ok, probe := b.Allow()
		if !ok {
			t.Fatal("a call refused")
		}
		b.Done(probe, err)
	}
	for range 5 { // slow, slow, fine: never open
		call(late)
		call(late)
		if b.IsOpen() {
			t.Fatalf("open after %d calls in a row that timed out, want %d", 2, Slow)
		}
		call(nil)
	}
	for range Slow {
		call(late)
	}
	if !b.IsOpen() {
		t.Fatalf("closed after %d calls in a row that timed out", Slow)
	}
	b = New(slog.New(slog.DiscardHandler), "down", "up")
	call(errors.New("connection refused"))
	if !b.IsOpen() {
		t.Fatal("closed after a refusal")
	}
}
