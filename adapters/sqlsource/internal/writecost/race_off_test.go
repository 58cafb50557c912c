//go:build !race

package writecost

const raceOn = false
