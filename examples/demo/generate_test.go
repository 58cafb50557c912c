package demo

import (
	"path/filepath"
	"testing"
)

// TestDeterministic checks that two builds give the same products, as
// they would on two machines.
func TestDeterministic(t *testing.T) {
	a, err := Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), filepath.Join(t.TempDir(), "b.db"), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if x, y := checksum(t, a.DB), checksum(t, b.DB); x != y {
		t.Errorf("two builds differ: %s and %s", x, y)
	}
	var name string
	if err := a.DB.QueryRow("SELECT name FROM products WHERE id = 1").Scan(&name); err != nil || name != "Minimal Glass Sofa" {
		t.Errorf("product 1 is %q (%v), want the seed's Minimal Glass Sofa", name, err)
	}
}
