package demo

import (
	"context"
	"path/filepath"
	"testing"
)

// installs is a Summarised that counts what it was asked.
type installs struct{ installed, removed int }

func (s *installs) InstallSummary(context.Context) error { s.installed++; return nil }
func (s *installs) RemoveSummary(context.Context) error  { s.removed++; return nil }

// TestEnsureSummary: a summary is installed once per page size, and the
// catalogue, with its summaries table, is still a demo catalogue.
func TestEnsureSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalogue.db")
	c, err := Open(t.Context(), path, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s installs
	for _, size := range []int{500, 500, 1000, 1000} {
		if err := EnsureSummary(t.Context(), c.DB, "products", size, &s); err != nil {
			t.Fatal(err)
		}
	}
	if s.installed != 2 || s.removed != 2 {
		t.Errorf("installed %d times, removed %d times; want 2 and 2 (once per page size)", s.installed, s.removed)
	}
	c.Close()
	if c, err = Open(t.Context(), path, 10, nil); err != nil {
		t.Fatalf("the catalogue with its summaries table: %v", err)
	}
	defer c.Close()
	if c.Built {
		t.Error("the catalogue was built again")
	}
}
