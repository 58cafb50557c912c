package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/tcpproxy"
)

// inbox collects the messages of a subscription, and checks that f is
// never called on two goroutines at once.
type inbox struct {
	t    testing.TB
	busy atomic.Bool
	mu   sync.Mutex
	msgs [][]byte
}

func (in *inbox) f(msg []byte) {
	if !in.busy.CompareAndSwap(false, true) {
		in.t.Error("f called on two goroutines at once")
	}
	defer in.busy.Store(false)
	in.mu.Lock()
	defer in.mu.Unlock()
	in.msgs = append(in.msgs, msg)
}

func (in *inbox) get() [][]byte {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([][]byte(nil), in.msgs...)
}

// wait fails t unless the inbox holds n messages within 5 seconds.
func (in *inbox) wait(n int) [][]byte {
	in.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(in.get()) < n {
		if time.Now().After(deadline) {
			in.t.Fatalf("%d messages received, want %d", len(in.get()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return in.get()
}

// TestPublishSubscribe delivers every message of a channel in order, and
// only that channel's, not those of another channel or of the same
// channel under another prefix; cancelling the context ends both
// subscriptions.
func TestPublishSubscribe(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix})
	elsewhere := newStore(t, c, redisstore.Options{Prefix: prefix + "elsewhere:"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	inv, other := &inbox{t: t}, &inbox{t: t}
	brokenInv, err := st.Subscribe(ctx, "{s}:inv", inv.f)
	if err != nil {
		t.Fatal(err)
	}
	brokenOther, err := st.Subscribe(ctx, "{s}:other", other.f)
	if err != nil {
		t.Fatal(err)
	}

	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	var want, wantOther [][]byte
	publish := func(st *redisstore.Store, channel string, msg []byte) {
		if err := st.Publish(ctx, channel, msg); err != nil {
			t.Fatal(err)
		}
	}
	publish(elsewhere, "{s}:inv", []byte("another prefix"))
	publish(st, "{s}:inv", all)
	want = append(want, all)
	for i := range 100 {
		msg := fmt.Appendf(nil, "page %d", i)
		publish(st, "{s}:inv", msg)
		want = append(want, msg)
		if i%10 == 0 {
			msg := fmt.Appendf(nil, "other %d", i)
			publish(st, "{s}:other", msg)
			wantOther = append(wantOther, msg)
		}
	}
	publish(st, "{s}:nobody", []byte("no subscriber, no error"))

	for _, tc := range []struct {
		in   *inbox
		want [][]byte
	}{{inv, want}, {other, wantOther}} {
		tc.in.wait(len(tc.want))
		time.Sleep(50 * time.Millisecond) // a message too many would come now
		got := tc.in.get()
		if len(got) != len(tc.want) {
			t.Errorf("%d messages received, want %d", len(got), len(tc.want))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], tc.want[i]) {
				t.Errorf("message %d = %q, want %q", i, got[i], tc.want[i])
				break
			}
		}
	}

	select {
	case <-brokenInv:
		t.Fatal("broken closed while the subscription runs")
	default:
	}
	cancel()
	within(t, brokenInv, time.Second, "broken closed after ctx was cancelled")
	within(t, brokenOther, time.Second, "broken closed after ctx was cancelled")
	waitRunning(t, 0)
}

// TestSubscribeCancel ends a subscription with its context: a message
// published afterwards is not delivered. A context with a deadline serves
// until the deadline.
func TestSubscribeCancel(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, Timeout: timeout})
	bg := context.Background()

	ctx, cancel := context.WithCancel(bg)
	in := &inbox{t: t}
	broken, err := st.Subscribe(ctx, "ch", in.f)
	if err != nil {
		t.Fatal(err)
	}
	st.Publish(bg, "ch", []byte("one"))
	in.wait(1)
	cancel()
	within(t, broken, time.Second, "broken closed after cancel")
	waitRunning(t, 0)
	st.Publish(bg, "ch", []byte("after"))
	time.Sleep(50 * time.Millisecond)
	if n := len(in.get()); n != 1 {
		t.Errorf("%d messages after cancel, want 1", n)
	}

	// The deadline is well past Timeout, which bounds only the setup.
	ctx, cancel = context.WithTimeout(bg, 5*timeout)
	defer cancel()
	in = &inbox{t: t}
	broken, err = st.Subscribe(ctx, "ch", in.f)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * timeout)
	st.Publish(bg, "ch", []byte("late"))
	in.wait(1)
	within(t, broken, 5*timeout, "broken closed after the deadline")
	waitRunning(t, 0)
}

// TestSubscribeBrokenOnCut cuts a subscriber off from Redis: broken closes
// at once, and a new subscription works once Redis is back.
func TestSubscribeBrokenOnCut(t *testing.T) {
	c, prefix := redisClient(t)
	p := tcpproxy.New(t, redisAddr(t))
	opts := redisstore.Options{Prefix: prefix, Timeout: timeout}
	sub, pub := newStore(t, dial(t, p.Addr()), opts), newStore(t, c, opts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	in := &inbox{t: t}
	broken, err := sub.Subscribe(ctx, "ch", in.f)
	if err != nil {
		t.Fatal(err)
	}
	pub.Publish(ctx, "ch", []byte("before"))
	in.wait(1)

	p.Cut()
	within(t, broken, time.Second, "broken closed after the cut")
	waitRunning(t, 0)
	if _, err := sub.Subscribe(ctx, "ch", in.f); err == nil {
		t.Fatal("Subscribe succeeded while cut")
	}

	p.Restore()
	broken, err = sub.Subscribe(ctx, "ch", in.f)
	if err != nil {
		t.Fatalf("Subscribe after Restore: %v", err)
	}
	pub.Publish(ctx, "ch", []byte("after"))
	if got := in.wait(2); string(got[1]) != "after" {
		t.Errorf("after Restore, got %q", got[1])
	}
	cancel()
	within(t, broken, time.Second, "broken closed after cancel")
}
