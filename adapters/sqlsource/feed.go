package sqlsource

import (
	"context"
	"database/sql"
	"time"
)

// The change feed: where Watch learns which rows were written. Every feed
// delivers each committed change at least once, names the row by its key
// and says whether the write was significant, and forgets changes only
// when told that they are applied, so a consumer that dies between
// reading and applying loses nothing: the next one reads them again.
//
// The change table (changetable.go) is a feed on every database. Another
// feed (PostgreSQL's logical decoding) plugs in here with the same shape.

// rowChange is one committed write of one row.
type rowChange struct {
	Key         int64     // the row's key (Config.Key)
	Significant bool      // an INSERT, or an UPDATE of the key or of a Config.Significant column
	Deleted     bool      // the row is gone: a DELETE, or the old key of an UPDATE that changed it
	Committed   time.Time // the database's time of the write
}

// changeFeed is a stream of committed row changes.
type changeFeed interface {
	// next waits for committed changes (in commit order) or ctx's end.
	next(ctx context.Context) ([]rowChange, feedPos, error)
	// ack: every change up to pos is applied (served or durably recorded); the feed
	// may forget them (prune the change table / confirm a slot's flush position).
	ack(ctx context.Context, pos feedPos) error
	close() error
}

// A txFeed is a feed kept in the database the summary is in (the change
// table): it forgets the changes it delivered in the transaction that
// applies them, so that a reader sees each change either waiting in the
// feed or applied to the summary, never both (counted twice, a page's
// clock would read a second ahead of the one it keeps) and never neither.
type txFeed interface {
	changeFeed
	// forget deletes, in tx, the changes delivered up to pos.
	forget(ctx context.Context, tx *sql.Tx, pos feedPos) error
	// forgotten is told that the transaction given to forget committed.
	forgotten(pos feedPos)
}

// feedPos is a position in a feed, as next returns it and ack takes it.
type feedPos uint64
