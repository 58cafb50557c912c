package sqlsource

import "time"

// The change feed's seam, as issue 27 states it. feed.go (from the change
// table's side of the issue) declares these same types, with the
// changeFeed interface that pgLogical implements; at merge that file
// replaces this one, which exists only so that the logical decoding
// compiles on its own.

// rowChange is one row written by a committed transaction: its key,
// whether a column that counts changed (or the row came or went), whether
// it is gone, and when its transaction committed.
type rowChange struct {
	Key                  int64
	Significant, Deleted bool
	Committed            time.Time
}

// feedPos is a position in a change feed; for logical decoding, the LSN
// that ends a committed transaction.
type feedPos uint64
