// Package purge tells a CDN which files changed, in the background: the
// files pushed are gathered for a delay from the first and handed to
// one callback in one batch, each file once, one call at a time. A call
// has a bound of its own; its error is logged and not retried; its panic
// is recovered and logged with the stack, and the purger goes on. Close
// tells what is queued within its bound and returns then, whatever the
// callback does.
package purge

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Batch is what one call tells: the files' URLs, and their keys, one a
// file.
type Batch struct {
	URLs []string
	Keys []string
}

const (
	// Delay is how long files are gathered before a call.
	Delay = time.Second
	// Timeout is the bound of one call, and of Close's wait.
	Timeout = 30 * time.Second
)

// Purger gathers the files to purge and calls its callback with them in
// the background, from New until Close.
type Purger struct {
	// Delay is how long files are gathered from the first of a batch:
	// the Delay const unless changed before the first Push (a test that
	// counts calls holds its batches until Close).
	Delay time.Duration

	fn  func(context.Context, Batch) error
	log *slog.Logger

	mu     sync.Mutex
	queued map[string]bool // keys queued
	next   Batch           // what the next call tells
	closed bool

	wake    chan struct{} // a file was queued with none before
	closing chan struct{} // closed by Close: tell what is queued, then end
	done    chan struct{} // closed when run has returned
	ctx     context.Context
	cancel  context.CancelFunc
}

// New starts a purger that tells fn; log (never nil) gets its failures.
// Close stops it.
func New(fn func(context.Context, Batch) error, log *slog.Logger) *Purger {
	p := &Purger{fn: fn, log: log, Delay: Delay, queued: make(map[string]bool),
		wake: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.run()
	return p
}

// Push queues the file named key at urls, unless it is queued already or
// the purger is closed. It never blocks on a call.
func (p *Purger) Push(key string, urls []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.queued[key] {
		return
	}
	p.queued[key] = true
	p.next.Keys = append(p.next.Keys, key)
	p.next.URLs = append(p.next.URLs, urls...)
	if len(p.queued) == 1 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// run tells what is queued, p.Delay after the first file of each batch,
// until Close.
func (p *Purger) run() {
	defer close(p.done)
	for {
		select {
		case <-p.wake:
		case <-p.closing:
			p.tell()
			return
		}
		t := time.NewTimer(p.Delay)
		select {
		case <-t.C:
		case <-p.closing:
			t.Stop()
		}
		p.tell()
	}
}

// tell calls fn with what is queued, if anything.
func (p *Purger) tell() {
	p.mu.Lock()
	batch := p.next
	p.next, p.queued = Batch{}, make(map[string]bool)
	p.mu.Unlock()
	if len(batch.Keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, Timeout)
	defer cancel()
	if err := p.call(ctx, batch); err != nil {
		p.log.Error("sitemap: OnPurge failed; the CDN serves those files until their max-age", "files", len(batch.Keys), "err", err)
	}
}

// call calls fn with batch; a panic is its error, logged with the stack.
func (p *Purger) call(ctx context.Context, batch Batch) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("OnPurge panicked: %v", v)
			p.log.Error("sitemap: OnPurge panicked; recovered", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	return p.fn(ctx, batch)
}

// Close tells what is queued and ends the purger, waiting at most bound
// (and Timeout); what is pushed afterwards is dropped. Past the bound it
// cancels the call under way and returns: a callback that ignores its
// context is left to end on its own, and logged. A second Close waits
// for the first, as long.
func (p *Purger) Close(bound time.Duration) {
	p.mu.Lock()
	was := p.closed
	p.closed = true
	p.mu.Unlock()
	if !was {
		close(p.closing)
	}
	t := time.NewTimer(min(bound, Timeout))
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cancel()
		if !was {
			p.log.Warn("sitemap: Close gave up waiting for OnPurge; it ignores its context, and is left to end on its own", "waited", min(bound, Timeout))
		}
	}
	p.cancel()
}
