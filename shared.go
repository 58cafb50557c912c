package sitemap

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/breaker"
	"github.com/freshmap/sitemap/internal/record"
)

// shared is the Store as the fleet calls it (fleet.go): the names of its
// keys, the records and messages it holds, the breaker every call goes
// through, and the counters of those calls.
type shared struct {
	st      Store
	base    string // the site's base URL
	ns      string // "{BASE}:", before the site's own keys; the braces are a Redis Cluster hash tag
	channel string
	id      uint64 // names this Sitemap's own messages
	br      *breaker.Breaker
	log     *slog.Logger

	breaks            atomic.Int64 // subscriptions that broke: copies made before may have missed a change
	hits, waits, errs atomic.Int64
	garbage           atomic.Bool // a value that did not decode was logged
}

// errStoreOff is the error of a call the breaker refused.
var errStoreOff = errors.New("store unavailable")

func newShared(st Store, base string, log *slog.Logger) *shared {
	var id [8]byte
	rand.Read(id[:])
	ns := "{" + base + "}:"
	return &shared{st: st, base: base, ns: ns, channel: ns + "changes", id: binary.LittleEndian.Uint64(id[:]),
		br: breaker.New(log, "sitemap: store unavailable; serving from this replica's cache and Source until it answers again", "sitemap: store available again; sharing resumed"), log: log}
}

// call runs f through the breaker. A call that fails because ctx ended
// (the client left, or the build timed out) is not the store's failure.
func (sh *shared) call(ctx context.Context, f func() error) error {
	ok, probe := sh.br.Allow()
	if !ok {
		return errStoreOff
	}
	err := f()
	switch {
	case err == nil, errors.Is(err, ErrLocked):
		sh.br.Done(probe, nil)
	case ctx.Err() != nil:
		sh.br.Done(probe, nil)
		return ctx.Err()
	default:
		sh.errs.Add(1)
		sh.br.Done(probe, err)
	}
	return err
}

// get returns the stored copy of the document k, named name, and the
// clocks it carries; nil if there is none or it does not decode. The
// clocks include the one stored apart (setClock), which outlives an
// expired or evicted copy.
//
// It also returns when the Store's state began (born), zero if the Store
// holds none, or garbage. A copy or clock stored in another era (before
// the Store last lost its state) is left out: its clock is from then.
func (sh *shared) get(ctx context.Context, k docKey, name string) (*entry, []keyClock, time.Time, error) {
	fk := sh.fileNS(name)
	keys := []string{sh.ns + "born", fk + "copy", fk + "clock"}
	var vs [][]byte
	err := sh.call(ctx, func() (err error) {
		vs, err = sh.st.Get(ctx, keys...)
		return err
	})
	if err != nil || len(vs) != len(keys) {
		return nil, nil, time.Time{}, cmp.Or(err, errRecord)
	}
	born, _ := decodeBorn(vs[0])
	vs = vs[1:]
	var clocks []keyClock
	if vs[1] != nil {
		if era, c, err := decodeStoredClock(vs[1]); err == nil && !born.IsZero() && era.Equal(born) {
			clocks = append(clocks, keyClock{k, c})
		}
	}
	if vs[0] == nil {
		return nil, clocks, born, nil
	}
	e, carried, err := decodeRecord(k, vs[0])
	if err != nil {
		sh.errs.Add(1)
		if !sh.garbage.Swap(true) {
			sh.log.Warn("sitemap: a store value does not decode; treated as missing (logged once)", "key", fk+"copy")
		}
		return nil, clocks, born, nil
	}
	if born.IsZero() || !e.era.Equal(born) {
		return nil, clocks, born, nil
	}
	return e, append(clocks, carried...), born, nil
}

// getBorn returns when the Store's state began, zero if it holds none.
func (sh *shared) getBorn(ctx context.Context) (time.Time, error) {
	var vs [][]byte
	err := sh.call(ctx, func() (err error) {
		vs, err = sh.st.Get(ctx, sh.ns+"born")
		return err
	})
	if err != nil || len(vs) != 1 {
		return time.Time{}, cmp.Or(err, errRecord)
	}
	born, _ := decodeBorn(vs[0])
	return born, nil
}

// setBorn stores t as the time the Store's state began.
func (sh *shared) setBorn(ctx context.Context, t time.Time) error {
	b := encodeBorn(t)
	return sh.call(ctx, func() error { return sh.setDurable(ctx, sh.ns+"born", b) })
}

// setDurable stores value under key for as long as the Store keeps its
// counters, if it can (a method SetDurable, as adapters/redisstore has:
// no TTL), else as any value. What must last as long as the Store's state
// is stored so: when that state began, and the content clocks.
func (sh *shared) setDurable(ctx context.Context, key string, value []byte) error {
	if d, ok := sh.st.(interface {
		SetDurable(ctx context.Context, key string, value []byte) error
	}); ok {
		return d.SetDurable(ctx, key, value)
	}
	return sh.st.Set(ctx, key, value)
}

// encodeBorn returns the stored form of t, when the Store's state began.
func encodeBorn(t time.Time) []byte {
	b := binary.LittleEndian.AppendUint64([]byte(bornMagic), uint64(t.UnixNano()))
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// bornMagic starts the record of when the Store's state began.
const bornMagic = "SMB\x01"

// decodeBorn returns the time setBorn stored.
func decodeBorn(b []byte) (time.Time, error) {
	if len(b) != len(bornMagic)+16 || string(b[:len(bornMagic)]) != bornMagic ||
		xxhash.Sum64(b[:len(bornMagic)+8]) != binary.LittleEndian.Uint64(b[len(bornMagic)+8:]) {
		return time.Time{}, errRecord
	}
	return time.Unix(0, int64(binary.LittleEndian.Uint64(b[len(bornMagic):]))).UTC(), nil
}

// time returns the Store's own time, if it tells it (a method Time, as
// adapters/redisstore has); ok is false if it does not or did not answer.
func (sh *shared) time(ctx context.Context) (t time.Time, ok bool) {
	ts, is := sh.st.(interface {
		Time(context.Context) (time.Time, error)
	})
	if !is {
		return t, false
	}
	err := sh.call(ctx, func() (err error) {
		t, err = ts.Time(ctx)
		return err
	})
	return t, err == nil
}

// set stores e as the copy of the document k, named name, with the clocks
// clock gives (encodeRecord).
func (sh *shared) set(ctx context.Context, k docKey, name string, e *entry, clock func(docKey) fileClock) error {
	b := encodeRecord(k, e, clock)
	return sh.call(ctx, func() error { return sh.st.Set(ctx, sh.fileNS(name)+"copy", b) })
}

// setClock stores the clock of the document name, given in era, apart
// from its copy, durably: an index build reads every page's, and a copy
// that expired leaves its clock.
func (sh *shared) setClock(ctx context.Context, name string, era time.Time, c fileClock) error {
	b := encodeStoredClock(era, c)
	return sh.call(ctx, func() error { return sh.setDurable(ctx, sh.fileNS(name)+"clock", b) })
}

// getClocks returns the stored clocks of the pages names, a zero clock
// for one that has none, does not decode or was stored in another era
// than era.
func (sh *shared) getClocks(ctx context.Context, era time.Time, names []string) ([]fileClock, error) {
	keys := make([]string, len(names)+1)
	keys[0] = sh.ns + "born"
	for i, n := range names {
		keys[i+1] = sh.fileNS(n) + "clock"
	}
	var vs [][]byte
	err := sh.call(ctx, func() (err error) {
		vs, err = sh.st.Get(ctx, keys...)
		return err
	})
	if err != nil || len(vs) != len(keys) {
		return nil, cmp.Or(err, errRecord)
	}
	cs := make([]fileClock, len(names))
	if born, _ := decodeBorn(vs[0]); born.IsZero() || !born.Equal(era) {
		return cs, nil
	}
	for i, v := range vs[1:] {
		if v == nil {
			continue
		}
		if at, c, err := decodeStoredClock(v); err == nil && at.Equal(era) {
			cs[i] = c
		}
	}
	return cs, nil
}

// lock takes the build lock of the document name.
func (sh *shared) lock(ctx context.Context, name string) (unlock func(), err error) {
	return sh.lockKey(ctx, sh.fileNS(name)+"lock")
}

// lockBorn takes the lock under which a new era is agreed (era.go).
func (sh *shared) lockBorn(ctx context.Context) (unlock func(), err error) {
	return sh.lockKey(ctx, sh.ns+"lock:born")
}

func (sh *shared) lockKey(ctx context.Context, key string) (unlock func(), err error) {
	err = sh.call(ctx, func() (err error) {
		unlock, err = sh.st.Lock(ctx, key)
		return err
	})
	return unlock, err
}

// fileNS is the start of the keys of the document name, its copy, clock
// and lock: "{BASE+NAME}:" (the file's own URL), a hash tag of its own, so that on a Redis
// Cluster a site's documents spread over every shard while the keys of
// one document stay in one slot. The site's own keys (when its state
// began, its generation, its channel) are under ns, one slot.
func (sh *shared) fileNS(name string) string { return "{" + sh.base + name + "}:" }

// Messages on the channel: what changed, so every replica learns it
// before its next request. They name documents by file name (as the
// keys do), so replicas that differ in the order of their sections, as
// in a rolling deploy that adds one, still understand each other.
const (
	msgChanged byte = 1 // said to have changed at gen: outdate them
	msgBuilt   byte = 2 // a new copy, whose hash is hash, is in the store
	msgLost    byte = 3 // the store lost its state: look it up before serving (era.go)
)

type message struct {
	kind  byte
	from  uint64
	gen   int64
	hash  uint64
	names []string
}

func (m *message) encode() []byte {
	b := []byte{m.kind}
	b = binary.LittleEndian.AppendUint64(b, m.from)
	b = binary.AppendVarint(b, m.gen)
	b = binary.LittleEndian.AppendUint64(b, m.hash)
	b = binary.AppendUvarint(b, uint64(len(m.names)))
	for _, n := range m.names {
		b = record.AppendString(b, n)
	}
	return b
}

func decodeMessage(b []byte) (*message, error) {
	if len(b) == 0 {
		return nil, errRecord
	}
	d := record.NewDecoder(b[1:])
	m := &message{kind: b[0], from: d.Uint64(), gen: d.Varint(), hash: d.Uint64()}
	m.names = make([]string, d.Count(1))
	for i := range m.names {
		m.names[i] = d.String()
	}
	if !d.Done() || m.kind != msgChanged && m.kind != msgBuilt && m.kind != msgLost {
		return nil, errRecord
	}
	return m, nil
}

func (sh *shared) publish(ctx context.Context, m *message) error {
	m.from = sh.id
	b := m.encode()
	return sh.call(ctx, func() error { return sh.st.Publish(ctx, sh.channel, b) })
}

// incr raises the store's generation and returns it.
func (sh *shared) incr(ctx context.Context) (gen int64, err error) {
	err = sh.call(ctx, func() (err error) {
		gen, err = sh.st.Incr(ctx, sh.ns+"gen")
		return err
	})
	return gen, err
}
