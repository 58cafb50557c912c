//go:build race

package testkit

// Race reports whether the tests run under the race detector, which
// makes them five to ten times slower: a bound on time a test checks is
// then wider.
const Race = true
