package main

import (
	"context"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// queue is the crawler's work: jobs (one robots.txt or one file each) run
// by a fixed pool of workers, the last queued first, so that the files
// of an index are done before the next Sitemap: line is taken up. Its
// memory is the jobs waiting (a name and a shared function each) and an
// 8-byte hash of each name seen, at most maxFiles of them: whatever a
// robots.txt or an index lists, no goroutine is started for it.
type queue struct {
	workers  int
	maxFiles int

	mu      sync.Mutex
	cond    sync.Cond
	jobs    []job
	running int
	seen    map[uint64]struct{}
	over    int // names past maxFiles, not queued
	skipped int // jobs not run: the run's context had ended
}

type job struct {
	name string
	fn   func(name string)
}

func newQueue(workers, maxFiles int) *queue {
	q := &queue{workers: workers, maxFiles: maxFiles, seen: map[uint64]struct{}{}}
	q.cond.L = &q.mu
	return q
}

// push queues fn for each name not seen before, to run in the order of
// names and before every job queued earlier, and returns how many it
// queued.
func (q *queue) push(names []string, fn func(name string)) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	start := len(q.jobs)
	for _, n := range names {
		h := xxhash.Sum64String(n)
		if _, ok := q.seen[h]; ok {
			continue
		}
		if len(q.seen) >= q.maxFiles {
			q.over++
			continue
		}
		q.seen[h] = struct{}{}
		q.jobs = append(q.jobs, job{n, fn})
	}
	slices.Reverse(q.jobs[start:]) // the last is taken first
	q.cond.Broadcast()
	return len(q.jobs) - start
}

// run runs the jobs on the workers, and those that they queue, and returns
// when none is left. Once ctx ends, the jobs still queued are counted and
// dropped.
func (q *queue) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(q.workers)
	for range q.workers {
		go func() {
			defer wg.Done()
			q.work(ctx)
		}()
	}
	wg.Wait()
}

func (q *queue) work(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.jobs) == 0 && q.running > 0 {
			q.cond.Wait()
		}
		if len(q.jobs) == 0 {
			q.cond.Broadcast()
			return
		}
		j := q.jobs[len(q.jobs)-1]
		q.jobs[len(q.jobs)-1] = job{}
		q.jobs = q.jobs[:len(q.jobs)-1]
		if ctx.Err() != nil {
			q.skipped++
			continue
		}
		q.running++
		q.mu.Unlock()
		j.fn(j.name)
		q.mu.Lock()
		q.running--
		q.cond.Broadcast()
	}
}

// left returns the jobs dropped at the end of the run's context, and the
// names not queued past maxFiles.
func (q *queue) left() (skipped, over int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.skipped, q.over
}
