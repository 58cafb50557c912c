package sitemap

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// memStore is a Store in memory, for the root package's tests (the Redis
// one is tested in adapters/redisstore). It can be taken down, and it
// counts its calls.
type memStore struct {
	mu       sync.Mutex
	vals     map[string][]byte
	locks    map[string]int // key → token of the holder
	counters map[string]int64
	subs     map[string][]*memSub
	token    int
	down     atomic.Bool
	calls    atomic.Int64
	gets     atomic.Int64 // Get calls, which read whole copies
}

type memSub struct {
	ch     chan []byte
	broken chan struct{}
	once   sync.Once
}

func (s *memSub) breakOff() { s.once.Do(func() { close(s.broken) }) }

var errMemDown = errors.New("memstore: down")

func newMemStore() *memStore {
	return &memStore{vals: map[string][]byte{}, locks: map[string]int{}, counters: map[string]int64{}, subs: map[string][]*memSub{}}
}

func (m *memStore) check() error {
	m.calls.Add(1)
	if m.down.Load() {
		return errMemDown
	}
	return nil
}

// setDown takes the store down (every call fails, subscriptions break)
// or brings it back.
func (m *memStore) setDown(down bool) {
	m.down.Store(down)
	if down {
		m.breakSubs()
	}
}

// breakSubs breaks every subscription, the store staying up.
func (m *memStore) breakSubs() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, subs := range m.subs {
		for _, s := range subs {
			s.breakOff()
		}
	}
	m.subs = map[string][]*memSub{}
}

// subscribers returns the number of subscriptions to channels.
func (m *memStore) subscribers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, subs := range m.subs {
		n += len(subs)
	}
	return n
}

func (m *memStore) Get(ctx context.Context, keys ...string) ([][]byte, error) {
	m.gets.Add(1)
	if err := m.check(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if v, ok := m.vals[k]; ok {
			out[i] = append([]byte(nil), v...)
		}
	}
	return out, nil
}

func (m *memStore) Set(ctx context.Context, key string, value []byte) error {
	if err := m.check(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.vals[key] = append([]byte(nil), value...)
	return nil
}

// Lock holds a lock until unlock, or until expire is called.
func (m *memStore) Lock(ctx context.Context, key string) (func(), error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, held := m.locks[key]; held {
		return nil, ErrLocked
	}
	m.token++
	tok := m.token
	m.locks[key] = tok
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.locks[key] == tok {
			delete(m.locks, key)
		}
	}, nil
}

// expire ends every lock, as if their holders had died.
func (m *memStore) expire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.locks)
}

func (m *memStore) Incr(ctx context.Context, key string) (int64, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counters[key]++
	return m.counters[key], nil
}

// Publish delivers msg to every subscriber before it returns, so a test
// that publishes then reads sees the message applied... almost: each
// subscriber applies it on its own goroutine, as a real store does.
func (m *memStore) Publish(ctx context.Context, channel string, msg []byte) error {
	if err := m.check(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.subs[channel] {
		s.ch <- append([]byte(nil), msg...)
	}
	return nil
}

func (m *memStore) Subscribe(ctx context.Context, channel string, f func([]byte)) (<-chan struct{}, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	s := &memSub{ch: make(chan []byte, 1024), broken: make(chan struct{})}
	m.mu.Lock()
	m.subs[channel] = append(m.subs[channel], s)
	m.mu.Unlock()
	go func() {
		for {
			select {
			case msg := <-s.ch:
				f(msg)
			case <-s.broken:
				return
			case <-ctx.Done():
				s.breakOff()
				return
			}
		}
	}()
	return s.broken, nil
}

// corrupt replaces every stored value by what f makes of it.
func (m *memStore) corrupt(f func([]byte) []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.vals {
		m.vals[k] = f(v)
	}
}

func TestMemStoreLock(t *testing.T) {
	m := newMemStore()
	unlock, err := m.Lock(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock(t.Context(), "a"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Lock: %v, want ErrLocked", err)
	}
	m.expire()
	unlock2, err := m.Lock(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	unlock() // the first holder's lock expired: it must not free the second's
	if _, err := m.Lock(t.Context(), "a"); !errors.Is(err, ErrLocked) {
		t.Fatalf("an expired holder's unlock freed another's lock: %v", err)
	}
	unlock2()
	if _, err := m.Lock(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if n, _ := m.Incr(t.Context(), "g"); n != int64(i+1) {
			t.Fatalf("Incr = %d, want %d", n, i+1)
		}
	}
}
