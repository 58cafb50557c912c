//go:build race

package writecost

// raceOn is whether the race detector is on: it slows a 50,000-URL build
// by an order of magnitude.
const raceOn = true
