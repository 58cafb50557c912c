//go:build !race

package sitemap

// raceEnabled is set when the race detector is on: tests that only push a
// lot of bytes through the encoder skip then.
const raceEnabled = false
