package demo

import "testing"

func TestPeakRSS(t *testing.T) {
	resetPeakRSS()
	if n := peakRSS(); n < 0 || n > 0 && n < 1<<20 {
		t.Errorf("peakRSS() = %d bytes", n)
	}
}
