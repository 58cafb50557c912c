//go:build !race

package testkit

// Race reports whether the tests run under the race detector (race.go).
const Race = false
