package demo

import "testing"

func TestBaseFor(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "http://localhost:8080",
		"127.0.0.1:9000": "http://127.0.0.1:9000",
		"[::]:8081":      "http://localhost:8081",
		"[::1]:8082":     "http://[::1]:8082",
		"nonsense":       "http://localhost:8080",
	} {
		if got := baseFor(addr); got != want {
			t.Errorf("baseFor(%q) = %q, want %q", addr, got, want)
		}
	}
}
