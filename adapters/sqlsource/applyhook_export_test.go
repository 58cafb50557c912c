package sqlsource

import "testing"

// HoldAfterApply has every watcher call f after it applies a batch of
// changes, before it goes on (to tell the Invalidator, or to read the
// next batch), until t ends: a test can read Pages while Watch stands
// there.
func HoldAfterApply(t testing.TB, f func()) {
	appliedHook.Store(&f)
	t.Cleanup(func() { appliedHook.Store(nil) })
}
