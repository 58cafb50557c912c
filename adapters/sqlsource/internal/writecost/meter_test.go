package writecost

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestProcessMeter: the CPU it reads grows by what a busy loop spends
// (from getrusage, and from /proc for the server's process, this one
// here), the bytes by what a file write wrote.
func TestProcessMeter(t *testing.T) {
	ctx := context.Background()
	m := ProcessMeter{Files: true, Server: os.Getpid()}
	before, err := m.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Busy until getrusage says 60 ms of CPU were spent (on a loaded
	// machine that takes longer than 60 ms), at most 20 s.
	for start := time.Now(); time.Since(start) < 20*time.Second; {
		u, err := m.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if u.Client-before.Client >= 60*time.Millisecond {
			break
		}
		for spin := time.Now(); time.Since(spin) < time.Millisecond; {
		}
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "f"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	after, err := m.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := after.sub(before)
	if d.Client < 60*time.Millisecond || d.Server < 40*time.Millisecond {
		t.Errorf("CPU read %v (process) and %v (server, /proc in 10 ms ticks) after 60 ms busy", d.Client, d.Server)
	}
	if d.WAL < 1<<20 {
		t.Errorf("%d bytes read as written after a 1 MiB file", d.WAL)
	}
	if u := (Usage{WAL: -1}).add(d); u.WAL != -1 {
		t.Errorf("unknown WAL added to known: %d, want -1", u.WAL)
	}
	if r, err := (ProcessMeter{}).Read(ctx); err != nil || r.WAL != -1 || r.Server != 0 {
		t.Errorf("ProcessMeter{} read %+v, %v: want no bytes (-1) and no server", r, err)
	}
}
