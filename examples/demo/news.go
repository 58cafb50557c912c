package demo

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertArticles inserts the articles of the grid slots from from to to,
// both included, skipping those already there.
func insertArticles(ctx context.Context, db execer, from, to time.Time) error {
	every := int64(articleEvery / time.Second)
	first := (from.Unix() + every - 1) / every * every
	for t := first; t <= to.Unix(); t += every {
		a := articleAt(time.Unix(t, 0))
		_, err := db.ExecContext(ctx, "INSERT OR IGNORE INTO articles (slug, title, lang, keywords, published_at) VALUES (?, ?, ?, ?, ?)",
			a.slug, a.title, a.lang, a.keywords, a.published)
		if err != nil {
			return fmt.Errorf("demo: articles: %w", err)
		}
	}
	return nil
}

// topUpNews publishes the articles due since the newest one, up to now, so
// that a catalogue built days ago still has news from the last two days.
func topUpNews(ctx context.Context, db *sql.DB, now time.Time) error {
	var newest sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(published_at) FROM articles").Scan(&newest); err != nil {
		return fmt.Errorf("demo: articles: %w", err)
	}
	from := now.Add(-articleHistory)
	if newest.Valid && newest.Int64 >= from.Unix() {
		from = time.Unix(newest.Int64+1, 0)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: articles: %w", err)
	}
	defer tx.Rollback()
	if err := insertArticles(ctx, tx, from, now); err != nil {
		return err
	}
	return tx.Commit()
}
