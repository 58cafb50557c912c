package sqlsource

import (
	"context"
	"errors"
	"time"
)

// ConsumeLogical is the test side's entry to the logical decoding feed,
// which Watch does not read yet, for BenchmarkWriteCost: it reads s's
// table from its slot (made, with the publication, if missing), applies
// each batch to the summary as Watch applies the change table's, tells inv
// of the pages, and acknowledges, reading at most once an interval
// (Config.WatchInterval). stop closes the feed and drops the slot
// and the publication. With text, the feed asks for pgoutput's text
// format even where the binary one could be had.
func ConsumeLogical(ctx context.Context, s *Source, inv Invalidator, section string, text bool) (stop func() error, err error) {
	cfg := s.logicalConfig("", "")
	cfg.text = text
	f, err := newPGLogical(ctx, s.db, cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		for {
			// At most one batch an interval, as Watch reads the change
			// table: a batch per transaction decoded would cost the
			// database an apply (and its commit) for every few writes.
			due := time.Now().Add(s.watchEvery)
			changes, pos, err := f.next(ctx)
			// A resync (the slot made anew when the consumer starts) is
			// acknowledged like a batch, or next would return it again at
			// every call: the changes before the slot are applied already
			// (the benchmark drains each mode's), so no page is told.
			resync := errors.Is(err, errResync)
			if resync {
				err = nil
			}
			if err == nil && (len(changes) > 0 || resync) {
				var pages []int64
				if pages, err = s.apply(ctx, changes, nil); err == nil {
					if err = f.ack(ctx, pos); err == nil && len(pages) > 0 {
						err = inv.Invalidate(section, pages...)
					}
				}
			}
			if ctx.Err() != nil || errors.Is(err, errFeedClosed) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
			if !sleep(ctx, time.Until(due)) {
				done <- nil
				return
			}
		}
	}()
	return func() error {
		cancel()
		err := <-done
		f.close()
		var derr error
		for range 100 { // its walsender may hold the slot a moment
			if derr = s.removeLogicalFeed(context.Background(), "", ""); derr == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		return errors.Join(err, derr)
	}, nil
}
