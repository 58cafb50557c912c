package sitemap

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkClockGiven is the cost of a new clock (other bytes of a page,
// as a rebuild after a change gives), written to the clock file and to
// disk before it is served, against the same without a file: what
// Config.ClockFile adds to a build that moves a clock. A build whose
// bytes did not change writes nothing.
func BenchmarkClockGiven(b *testing.B) {
	for _, name := range []string{"memory", "clockfile"} {
		b.Run(name, func(b *testing.B) {
			var file *clockFile
			if name == "clockfile" {
				var err error
				sections := []*section{{name: ""}}
				if file, err = openClockFile(filepath.Join(b.TempDir(), "clocks"), sections, t0, slog.New(slog.DiscardHandler)); err != nil {
					b.Fatal(err)
				}
				defer file.close()
			}
			c := newClocks(t0.Add(-time.Hour), true, file)
			now := t0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				now = now.Add(2 * time.Second)
				c.built(pageKey(0, int64(i%100)+1), uint64(i), time.Time{}, time.Time{}, now, true, false)
				c.sync()
			}
		})
	}
}
