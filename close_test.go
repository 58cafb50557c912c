package sitemap

import (
	"runtime"
	"testing"
	"time"
)

// TestCloseStopsEverything: Close stops every goroutine a Sitemap started:
// the fleet's subscription (whose goroutine in memStore ends with its
// context), background refreshes and an Invalidate's rebuilds, and the
// IndexNow sender.
func TestCloseStopsEverything(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	st := newMemStore()
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: inBase, Store: st, TTL: time.Millisecond,
		IndexNow: &IndexNow{Key: testKey, Endpoints: []string{ep.url()}}}, Section{Source: newFake(20, 5)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return st.subscribers() == 1 })
	for p := range 4 {
		get(sm, "/sitemap-"+string(rune('1'+p))+".xml.gz")
	}
	time.Sleep(2 * time.Millisecond)
	get(sm, "/sitemap-1.xml.gz") // stale: a refresh starts
	if err := sm.Invalidate(""); err != nil {
		t.Fatal(err)
	}
	sm.Notify(inBase + "p/1")
	sm.Close()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
