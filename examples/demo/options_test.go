package demo

import (
	"testing"

	"github.com/freshmap/sitemap"
)

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

func TestIndexNowFlag(t *testing.T) {
	if parseFlags(nil).IndexNow() != nil {
		t.Error("IndexNow is on without -indexnow")
	}
	in := parseFlags([]string{"-indexnow", "http://127.0.0.1:9000/indexnow"}).IndexNow()
	if in == nil || in.Key != "freshmap-demo-key" || len(in.Endpoints) != 1 || in.Endpoints[0] != "http://127.0.0.1:9000/indexnow" {
		t.Errorf("IndexNow = %+v", in)
	}
	// The demo's key is a valid one.
	sm, err := sitemap.New(sitemap.Config{BaseURL: "http://localhost:8080", IndexNow: in},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "http://localhost:8080/"}}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	sm.Close()
}

func TestRedisFlag(t *testing.T) {
	st, closeStore, err := parseFlags(nil).Store()
	if st != nil || err != nil {
		t.Errorf("without -redis: Store = %v, %v; want nil", st, err)
	}
	closeStore()
	o := parseFlags([]string{"-redis", "127.0.0.1:6379"})
	st, closeStore, err = o.Store()
	if o.Redis != "127.0.0.1:6379" || st == nil || err != nil {
		t.Fatalf("with -redis: Redis %q, Store = %v, %v", o.Redis, st, err)
	}
	closeStore()
}
