package writecost

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// A lagTrace keeps what happened while a probe waited for its new bytes,
// to say where the slowest probes' time went: the Sitemap's builds of
// pages and of the index (its debug log, which gives each build's
// duration), and the probe's requests.
type lagTrace struct {
	next   slog.Handler // where the records above debug go
	mu     sync.Mutex
	builds []traceBuild
}

// traceBuild is one build the Sitemap logged: page 0 is the index.
type traceBuild struct {
	page       int64
	start, end time.Time
}

// probeTrace is one probe's timeline.
type probeTrace struct {
	page      int64
	committed time.Time
	lag       time.Duration
	fetches   []traceFetch
}

// traceFetch is one request of a probe: when it began, what it got, and
// how long it took.
type traceFetch struct {
	at     time.Time
	status int
	took   time.Duration
}

// handler returns the slog.Handler that records the builds.
func (t *lagTrace) handler() slog.Handler { return traceHandler{t} }

type traceHandler struct{ t *lagTrace }

func (h traceHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l == slog.LevelDebug || h.t.next.Enabled(ctx, l)
}
func (h traceHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h traceHandler) WithGroup(string) slog.Handler      { return h }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level != slog.LevelDebug {
		return h.t.next.Handle(ctx, r)
	}
	var page int64
	switch r.Message {
	case "sitemap: built page":
	case "sitemap: built index":
		page = 0
	default:
		return nil
	}
	var dur time.Duration
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "page":
			page = a.Value.Int64()
		case "duration":
			dur = a.Value.Duration()
		}
		return true
	})
	h.t.mu.Lock()
	h.t.builds = append(h.t.builds, traceBuild{page: page, start: r.Time.Add(-dur), end: r.Time})
	h.t.mu.Unlock()
	return nil
}

// write writes the timelines of the n slowest probes, in milliseconds
// from each one's commit: when its page was told, the builds of its page
// and of the index that ended after the commit, and its requests.
func (t *lagTrace) write(w io.Writer, probes []probeTrace, told *toldAt, n int) {
	probes = slices.Clone(probes)
	slices.SortFunc(probes, func(a, b probeTrace) int { return int(b.lag - a.lag) })
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range probes[:min(n, len(probes))] {
		end := p.committed.Add(p.lag)
		ms := func(at time.Time) string { return fmt.Sprint(at.Sub(p.committed).Milliseconds()) }
		var b strings.Builder
		fmt.Fprintf(&b, "  probe on page %d: %v; told at", p.page, p.lag.Round(time.Millisecond))
		told.mu.Lock()
		for _, at := range told.at[p.page] {
			if !at.Before(p.committed) && !at.After(end) {
				b.WriteString(" " + ms(at))
			}
		}
		told.mu.Unlock()
		b.WriteString("; builds (page: start–end)")
		for _, bl := range t.builds {
			if (bl.page == p.page || bl.page == 0) && bl.end.After(p.committed) && bl.start.Before(end) {
				name := fmt.Sprint(bl.page)
				if bl.page == 0 {
					name = "index"
				}
				fmt.Fprintf(&b, " %s: %s–%s", name, ms(bl.start), ms(bl.end))
			}
		}
		b.WriteString("; requests (start status took)")
		for _, f := range p.fetches {
			fmt.Fprintf(&b, " %s %d %d", ms(f.at), f.status, f.took.Milliseconds())
		}
		fmt.Fprintln(w, b.String())
	}
}
