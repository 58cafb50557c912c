package redisstore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/tcpproxy"
)

// The lock tests' options: short, so that expiries are quick to wait for.
const (
	lockTTL = 300 * time.Millisecond
	timeout = 100 * time.Millisecond
)

// TestLock takes a lock, fails to take it again from the same or another
// Store, frees it with unlock, and calls unlock twice and concurrently.
func TestLock(t *testing.T) {
	c, prefix := redisClient(t)
	opts := redisstore.Options{Prefix: prefix, LockTTL: lockTTL, Timeout: timeout}
	a, b := newStore(t, c, opts), newStore(t, dial(t, redisAddr(t)), opts)
	ctx := context.Background()

	unlock, err := a.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]*redisstore.Store{"the holder": a, "another Store": b} {
		if again, err := st.Lock(ctx, "k"); !errors.Is(err, sitemap.ErrLocked) {
			t.Fatalf("a second Lock by %s: %v, want ErrLocked", name, err)
		} else if again != nil {
			t.Fatalf("a second Lock by %s returned an unlock with ErrLocked", name)
		}
	}
	other, err := b.Lock(ctx, "k2")
	if err != nil {
		t.Fatalf("a lock of another key: %v", err)
	}
	other()

	unlock()
	if n := c.Exists(ctx, prefix+"k").Val(); n != 0 {
		t.Error("unlock left the key")
	}
	unlock() // again: a no-op
	waitRunning(t, 0)

	unlock, err = b.Lock(ctx, "k")
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(unlock)
	}
	wg.Wait()
	if n := c.Exists(ctx, prefix+"k").Val(); n != 0 {
		t.Error("concurrent unlocks left the key")
	}
	waitRunning(t, 0)
}

// TestLockRenewal holds a lock for more than 3 LockTTLs: the renewals
// keep it.
func TestLockRenewal(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, LockTTL: lockTTL, Timeout: timeout})
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	time.Sleep(3*lockTTL + lockTTL/2)
	if again, err := st.Lock(ctx, "k"); !errors.Is(err, sitemap.ErrLocked) {
		if err == nil {
			again()
		}
		t.Errorf("after 3.5 LockTTLs, Lock = %v, want ErrLocked", err)
	}
	if ttl := c.PTTL(ctx, prefix+"k").Val(); ttl <= 0 || ttl > lockTTL {
		t.Errorf("PTTL = %v, want at most LockTTL", ttl)
	}
}

// TestUnlockKeepsAnothersLock lets a lock pass to another holder behind
// its first holder's back, as when it expires: the first holder's renewer
// stops without touching it, and its unlock does not delete it.
func TestUnlockKeepsAnothersLock(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, LockTTL: lockTTL, Timeout: timeout})
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := c.Set(ctx, prefix+"k", "another's token", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, 0) // the renewer found the lock is not its own
	unlock()
	if v := c.Get(ctx, prefix+"k").Val(); v != "another's token" {
		t.Errorf("after unlock, the key holds %q", v)
	}
	if ttl := c.PTTL(ctx, prefix+"k").Val(); ttl < 9*time.Second {
		t.Errorf("the other's lock has a PTTL of %v: renewed by the first holder", ttl)
	}
}

// TestLockExpiresWhenHolderCut cuts a holder off from Redis: it cannot
// renew, its lock expires after LockTTL and another Store takes it; the
// holder's renewer gives up, and its unlock returns and leaves the new
// holder's lock alone.
func TestLockExpiresWhenHolderCut(t *testing.T) {
	c, prefix := redisClient(t)
	p := tcpproxy.New(t, redisAddr(t))
	opts := redisstore.Options{Prefix: prefix, LockTTL: lockTTL, Timeout: timeout}
	holder, other := newStore(t, dial(t, p.Addr()), opts), newStore(t, c, opts)
	ctx := context.Background()

	unlock, err := holder.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	p.Cut()
	cut := time.Now()
	if _, err := other.Lock(ctx, "k"); !errors.Is(err, sitemap.ErrLocked) {
		t.Fatalf("Lock right after the cut = %v, want ErrLocked", err)
	}
	var unlockOther func()
	for unlockOther == nil {
		if time.Since(cut) > lockTTL+2*time.Second {
			t.Fatal("the cut holder's lock did not expire")
		}
		time.Sleep(10 * time.Millisecond)
		if unlockOther, err = other.Lock(ctx, "k"); err != nil && !errors.Is(err, sitemap.ErrLocked) {
			t.Fatal(err)
		}
	}
	defer unlockOther()
	if d := time.Since(cut); d < lockTTL/3 {
		t.Errorf("the lock was free %v after the cut, before it could expire", d)
	}
	waitRunning(t, 1) // the holder's renewer gave up; the other's runs

	start := time.Now()
	unlock()
	if d := time.Since(start); d > 5*timeout {
		t.Errorf("unlock of the cut holder took %v", d)
	}
	p.Restore()
	if again, err := holder.Lock(ctx, "k"); !errors.Is(err, sitemap.ErrLocked) {
		if err == nil {
			again()
		}
		t.Errorf("the cut holder's unlock freed the other's lock: Lock = %v", err)
	}
	unlockOther()
	waitRunning(t, 0)
}
