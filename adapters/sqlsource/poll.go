package sqlsource

import "context"

// poll is the watcher's loop without notifications (SQLite, MySQL, and
// PostgreSQL without pgx): every interval, one read of the summary's
// change counters, one row per page, and one Invalidate of the pages
// whose counter moved. A failed read is tried again at the next tick.
//
// The counters are read rather than the pages changed since a time: a
// page's changed_at is its writer's clock (the transaction's start on
// PostgreSQL), which a transaction committed later may hold earlier, and
// a counter of the whole table would make every writer wait on one row.
// The summary has one row per PageSize keys, 200 rows for 10,000,000
// keys at the default size.
func (w *Watcher) poll(ctx context.Context) {
	for sleep(ctx, w.every) {
		if err := w.revalidate(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			w.fail(err)
			continue
		}
		w.recovered()
		if !w.flush() {
			return
		}
	}
}
