package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/redis/go-redis/v9"
)

// The scripts act on a lock only while it holds the caller's token: a
// holder whose lock expired, and was perhaps taken by another, must not
// extend or delete the other's. GET and the write are one atomic step.
var (
	renewScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
	releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)
)

// Lock takes the lock key with SET NX, expiring after LockTTL, and renews
// it every LockTTL/3 until unlock is called. It returns sitemap.ErrLocked
// if another holds the lock.
//
// A SET whose reply came too late (the call's timeout) is looked up: the
// lock is this call's if it holds its token, and is otherwise deleted a
// little later if the SET lands after the look, so a slow Redis leaves no
// lock that every replica waits for. A SET whose reply was lost to a
// broken connection leaves, if it was applied, a lock held by no one
// until it expires, after LockTTL.
func (s *Store) Lock(ctx context.Context, key string) (unlock func(), err error) {
	var b [16]byte
	rand.Read(b[:]) // never fails
	l := &lock{s: s, key: s.prefix + key, token: hex.EncodeToString(b[:]), done: make(chan struct{})}
	call, end := s.bound(ctx)
	ok, err := s.client.SetNX(call, l.key, l.token, s.lockTTL).Result()
	end(err)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// The SET may have been applied and its reply come too late: a
		// lock held by no one until it expires, that every replica would
		// wait for. Look whose it is; and, unless it is this call's,
		// delete it a little later if it holds this token, in case the
		// SET lands after the look.
		switch held, taken := l.resolve(); {
		case held:
			err, ok = nil, true
		case taken:
			err, ok = nil, false // another's: ErrLocked
		default:
			go l.releaseLater()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: lock %q: %w", key, err)
	}
	if !ok {
		return nil, sitemap.ErrLocked
	}
	var renewCtx context.Context
	renewCtx, l.stop = context.WithCancel(context.Background())
	go l.renew(renewCtx, time.Now().Add(s.lockTTL))
	return l.unlock, nil
}

// A lock is one held lock.
type lock struct {
	s          *Store
	key, token string
	stop       context.CancelFunc // ends the renewer, and its call in flight
	done       chan struct{}      // closed when the renewer has returned
	once       sync.Once
}

// renew extends the lock every LockTTL/3 until ctx is done (unlock), the
// lock is found to be another's, or the renewals have failed until
// expires, when the lock is gone anyway. expires is LockTTL after the
// reply to the last successful call, a little after Redis's own expiry:
// a renewal too many finds the lock gone, while one too few could let it
// expire.
func (l *lock) renew(ctx context.Context, expires time.Time) {
	defer close(l.done)
	tick := time.NewTicker(l.s.lockTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		callCtx, end := l.s.bound(ctx)
		n, err := renewScript.Run(callCtx, l.s.client, []string{l.key}, l.token, l.s.lockTTL.Milliseconds()).Int()
		end(err)
		switch {
		case err == nil && n == 1:
			expires = time.Now().Add(l.s.lockTTL)
		case err == nil:
			return // expired, and perhaps taken by another
		case !time.Now().Before(expires):
			return
		}
	}
}

// resolve reads the lock after a SET whose reply did not come in time:
// held if it holds this lock's token; taken if it holds another's.
func (l *lock) resolve() (held, taken bool) {
	ctx, end := l.s.bound(context.Background())
	v, err := l.s.client.Get(ctx, l.key).Result()
	end(err)
	return err == nil && v == l.token, err == nil && v != l.token
}

// releaseLater deletes the lock, after a call's timeout, if it holds this
// lock's token: a SET that was sent but not yet applied when resolve
// looked.
func (l *lock) releaseLater() {
	time.Sleep(l.s.lat.timeout())
	ctx, end := l.s.bound(context.Background())
	end(releaseScript.Run(ctx, l.s.client, []string{l.key}, l.token).Err())
}

// unlock stops the renewer, waits for it, and deletes the lock if it still
// holds the token. It may be called more than once, concurrently. It uses
// a context of its own, since the caller's may be done by now; its error
// is dropped, since a lock left behind expires after LockTTL.
func (l *lock) unlock() {
	l.once.Do(func() {
		l.stop()
		<-l.done
		ctx, end := l.s.bound(context.Background())
		end(releaseScript.Run(ctx, l.s.client, []string{l.key}, l.token).Err())
	})
}
