package testkit

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(t0)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Add(time.Second); _ = c.Now() })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("Now = %v", got)
	}
}

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { fmt.Fprintf(&b, "%d\n", i); _ = b.String() })
	}
	wg.Wait()
	if n := len(b.String()); n != 20 {
		t.Errorf("%d bytes written, want 20", n)
	}
}

// fatalTB is a testing.TB whose Fatal and Fatalf end only the goroutine
// they are called on, and say they were.
type fatalTB struct {
	testing.TB
	failed bool
}

func (f *fatalTB) Helper()               {}
func (f *fatalTB) Fatal(...any)          { f.failed = true; runtime.Goexit() }
func (f *fatalTB) Fatalf(string, ...any) { f.failed = true; runtime.Goexit() }

// TestGunzipMember: one member reads back; two members, garbage after
// one, and bytes that are not gzip fail.
func TestGunzipMember(t *testing.T) {
	member := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	one := member("abc")
	for name, tc := range map[string]struct {
		gz   []byte
		fail bool
	}{
		"one":      {one, false},
		"two":      {append(member("abc"), member("def")...), true},
		"garbage":  {append(member("abc"), 'x'), true},
		"not gzip": {[]byte("abc"), true},
	} {
		f := &fatalTB{TB: t}
		var got []byte
		done := make(chan struct{})
		go func() { defer close(done); got = GunzipMember(f, tc.gz) }()
		<-done
		if f.failed != tc.fail || !tc.fail && string(got) != "abc" {
			t.Errorf("%s: failed %v, read %q", name, f.failed, got)
		}
	}
}
