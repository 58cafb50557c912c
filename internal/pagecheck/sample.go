package pagecheck

import (
	"math/rand/v2"
	"slices"
)

// Sample returns n of locs picked at random, in their order (locs itself
// if n covers them all): the pages of a sitemap file to check.
func Sample[T any](locs []T, n int) []T {
	if n >= len(locs) {
		return locs
	}
	picked := rand.Perm(len(locs))[:max(n, 0)]
	slices.Sort(picked)
	out := make([]T, len(picked))
	for i, p := range picked {
		out[i] = locs[p]
	}
	return out
}
