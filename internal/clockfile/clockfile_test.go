package clockfile

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/record"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func all(Key) bool { return true }

// TestReopen: the clocks put and synced are there at the next Open, the
// latest of each key; the floor stays; keys known refuses are dropped.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clocks")
	f, loaded, err := Open(path, t0, all, slog.New(slog.DiscardHandler))
	if err != nil || len(loaded) != 0 {
		t.Fatal(loaded, err)
	}
	floor := f.Floor()
	if !floor.After(t0) {
		t.Errorf("floor %v not after %v", floor, t0)
	}
	a, b := Key{Kind: 1, Name: "a", Page: 2}, Key{Kind: 1, Name: "b", Page: 1}
	f.Put(a, record.Clock{At: t0, Hash: 1})
	f.Put(a, record.Clock{At: t0.Add(time.Second), Hash: 2, Built: true})
	f.Put(b, record.Clock{At: t0, Hash: 3, Version: "v"})
	f.Sync()
	f.Put(b, record.Clock{At: t0.Add(time.Hour)}) // never synced: lost
	f.Close()
	f.Put(a, record.Clock{}) // after Close: nothing is written, nothing fails
	f.Sync()

	f, loaded, err = Open(path, t0.Add(time.Hour), func(k Key) bool { return k.Name == "a" }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Floor().Equal(floor) {
		t.Errorf("floor %v, want %v", f.Floor(), floor)
	}
	want := map[Key]record.Clock{a: {At: t0.Add(time.Second), Hash: 2, Built: true}}
	if len(loaded) != len(want) || loaded[a] != want[a] {
		t.Errorf("loaded %+v, want %+v", loaded, want)
	}
	f.Close()
	// b was dropped by the rewrite at the last Open.
	_, loaded, err = Open(path, t0, all, slog.New(slog.DiscardHandler))
	if err != nil || len(loaded) != 1 {
		t.Errorf("after a rewrite: %+v %v", loaded, err)
	}
	var nilFile *File
	nilFile.Put(a, record.Clock{})
	nilFile.Sync()
	nilFile.Close()
}

// TestTornAndDamaged: a torn last record is dropped and the rest kept; a
// damaged header or another file is an error.
func TestTornAndDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clocks")
	f, _, err := Open(path, t0, all, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Kind: 0, Page: 1}
	f.Put(k, record.Clock{At: t0, Hash: 9})
	f.Put(Key{Kind: 2, Name: "x", Page: 3}, record.Clock{At: t0})
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for cut := len(b) - 1; cut > len(b)-20; cut-- {
		if err := os.WriteFile(path, b[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		f, loaded, err := Open(path, t0, all, slog.New(slog.DiscardHandler))
		if err != nil || len(loaded) != 1 {
			t.Fatalf("cut at %d of %d: %+v %v", cut, len(b), loaded, err)
		}
		f.Close()
	}
	for name, v := range map[string][]byte{"other": []byte("hello, world, this is not it"), "header": append([]byte(magic), make([]byte, 16)...)} {
		if err := os.WriteFile(path, v, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Open(path, t0, all, slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
