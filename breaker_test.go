package sitemap

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestBreaker(t *testing.T) {
	var logs testkit.SyncBuffer
	clock := testkit.NewClock(time.Unix(1e9, 0))
	b := newBreaker(slog.New(slog.NewTextHandler(&logs, nil)))
	b.now = clock.Now
	boom := errors.New("boom")
	// Two calls in flight fail: the breaker opens once, with the shortest cooldown.
	ok1, p1 := b.allow()
	ok2, p2 := b.allow()
	if !ok1 || !ok2 || p1 || p2 {
		t.Fatal("a closed breaker refused a call, or called it a probe")
	}
	b.done(p1, boom)
	b.done(p2, boom)
	if ok, _ := b.allow(); ok || !b.isOpen() {
		t.Fatal("an open breaker let a call through")
	}
	clock.Add(breakerMin)
	ok, probe := b.allow()
	if !ok || !probe {
		t.Fatal("no probe after the cooldown")
	}
	if ok, _ := b.allow(); ok {
		t.Fatal("a second call while the probe runs")
	}
	b.done(probe, boom) // the probe fails: twice the cooldown
	clock.Add(breakerMin)
	if ok, _ := b.allow(); ok {
		t.Fatal("the cooldown did not double after a failed probe")
	}
	clock.Add(breakerMin)
	ok, probe = b.allow()
	if !ok || !probe {
		t.Fatal("no probe after the doubled cooldown")
	}
	b.done(probe, nil)
	if b.isOpen() {
		t.Fatal("a good probe did not close the breaker")
	}
	for range 20 { // an outage that lasts: the cooldown stops at breakerMax
		ok, probe := b.allow()
		if ok {
			b.done(probe, boom)
		}
		clock.Add(breakerMax)
	}
	if b.cooldown != breakerMax {
		t.Errorf("cooldown %v, want %v", b.cooldown, breakerMax)
	}
	if got := strings.Count(logs.String(), "store unavailable"); got != 2 {
		t.Errorf("%d 'unavailable' lines for two outages, want 2:\n%s", got, logs.String())
	}
	if got := strings.Count(logs.String(), "available again"); got != 1 {
		t.Errorf("%d 'available again' lines, want 1", got)
	}
}
