package sitemap

import (
	"context"
	"fmt"
	"iter"
	"runtime/debug"
)

// What a build does not take on trust from a Source: that it returns
// (a panic, a runtime.Goexit), and that its Pages ends. URLs is bounded in
// encodePage: by the build's deadline, and by the page size.

// guarded runs b's build of j on a goroutine of its own and returns its
// result. A panic and a runtime.Goexit (which t.FailNow calls) end that
// goroutine, not the load waiting for it: either becomes a *panicError
// with the stack, which fails the build like any error (logged once,
// remembered for RetryAfter, answered at once with a 503 or the last good
// copy). A Goexit in the load itself would leave the requests that share
// it waiting until BuildTimeout, and remember nothing (TestGoexitSource).
func guarded(ctx context.Context, b builder, j job) (e *entry, fx effects, err error) {
	done := make(chan struct{})
	go func() {
		returned := false
		defer func() {
			if !returned {
				p := recover() // nil for a Goexit: a panic(nil) is a *runtime.PanicNilError
				e, fx, err = nil, effects{}, &panicError{value: p, stack: debug.Stack(), goexit: p == nil}
			}
			close(done)
		}()
		e, fx, err = b.build(ctx, j)
		returned = true
	}()
	<-done
	return e, fx, err
}

// maxIndexFiles is the most index files an index has: Search Console takes
// 500 index files a site. At 50,000 pages a file, it bounds what an index
// holds in memory (maxIndexPages), whatever a Source's Pages yields.
const (
	maxIndexFiles = 500
	maxIndexPages = maxIndexFiles * MaxURLs // 25,000,000
)

// listPages yields what pages, the Pages of a section, yields, with the
// build's checks that Pages cannot be trusted with: ctx every
// ctxCheckEvery pages, as encodePage checks a page's URLs, so that a Pages
// that never ends and ignores its context stops at the build's deadline;
// and at most max pages in all, counted in *n across the sections, so that
// one that yields too many fails at the first page past the bound, before
// it takes the memory (TestPagesDeadline, TestPagesBounded). Either ends
// the iteration with the error.
func listPages(ctx context.Context, pages iter.Seq2[PageInfo, error], n *int64, max int64) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for info, err := range pages {
			if err == nil {
				if *n++; *n > max {
					err = fmt.Errorf("more than %d pages, the most an index lists", max)
				} else if *n%ctxCheckEvery == 0 {
					err = ctx.Err()
				}
			}
			if !yield(info, err) || err != nil {
				return
			}
		}
	}
}
