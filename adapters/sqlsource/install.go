package sqlsource

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Installation is a migration: InstallSummary brings the database to the
// state this Source's configuration needs, whatever it finds there (a
// Source's tables and triggers, none, those of an earlier configuration,
// or the recounting triggers of an earlier version), and does nothing
// when it is there already. Row 0 of the page summary records what was
// installed: the layout of the pages (listed) and a fingerprint of the
// triggers (changes).

// installVersion changes whenever what InstallSummary makes changes shape.
const installVersion = "sqlsource-changes-2"

// InstallSummary installs, as a migration, what a Source with
// Config.Summary reads and what Watch consumes:
//
//   - the change table, <table>_sitemap_changes, and AFTER INSERT,
//     UPDATE and DELETE triggers on the table that add one row to it per
//     row written (its key, whether it was deleted, the database's time);
//     with Config.Significant, an UPDATE that changes neither the key nor
//     one of those columns adds nothing;
//   - the page summary, <table>_sitemap_pages (page, listed, changes,
//     changed_at), filled from the rows there are and then kept by Watch
//     from the change table, never by the application's writes;
//   - with Config.Significant and Config.LastMod, the row times,
//     <table>_sitemap_rows (sitemap_key, sitemap_changed_at), filled with
//     each listed row's LastMod and then kept by Watch.
//
// Installing again with the same configuration changes nothing. An
// installation made for another PageSize, KeyStart, Filter, Significant
// or LastMod is brought to this one (the triggers replaced, the summary
// filled again if its pages differ), and so is the page summary of an
// earlier version, whose recounting triggers are dropped; its pages keep
// their change times. Config.Table must be a plain table name and
// Config.Key a plain integer column (see Check). It needs the privileges
// to create tables and triggers on the table; docs/sqlsource.md (in the
// sitemap module) gives each database's grants.
//
// With logical decoding (Config.Capture), it makes no trigger and drops
// those of the change table, if any: Watch reads the replication slot.
//
// On SQLite and PostgreSQL it runs in one transaction. On MariaDB and
// MySQL, whose DDL commits as it goes, the tables and triggers come first
// and the fills after, so no write is missed; a failure leaves what was
// made, and installing again completes it. TRUNCATE fires no row
// triggers: after one, call RemoveSummary and InstallSummary.
func (s *Source) InstallSummary(ctx context.Context) error {
	if err := s.sum.check(); err != nil {
		return err
	}
	if err := s.checkKey(ctx); err != nil {
		return err
	}
	if _, err := s.captureOf(ctx); err != nil {
		return err
	}
	if s.dialect == MySQL {
		if err := s.install(ctx, s.db); err != nil {
			return fmt.Errorf("sqlsource: install summary: %w", err)
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlsource: install summary: %w", err)
	}
	defer tx.Rollback()
	if err := s.install(ctx, tx); err != nil {
		return fmt.Errorf("sqlsource: install summary: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlsource: install summary: %w", err)
	}
	return nil
}

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// install runs the migration on db, in order: the tables, the triggers,
// the fills, the record of what is installed.
func (s *Source) install(ctx context.Context, db execer) error {
	pages := summaryName(s.sum.table)
	tables := []string{s.pagesDDL(), s.changesDDL()}
	if s.sum.rowTimes() {
		tables = append(tables, s.rowTimeDDL())
	}
	for _, q := range tables {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	updateOf, err := s.updateOf(ctx, db)
	if err != nil {
		return err
	}
	layout, trig := s.fingerprints(updateOf)
	var haveLayout, haveTrig sql.NullInt64
	err = db.QueryRowContext(ctx, "SELECT listed, changes FROM "+pages+" WHERE page = 0").Scan(&haveLayout, &haveTrig)
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	names, err := s.triggerNames(ctx, db)
	if err != nil {
		return err
	}
	want := s.changeTriggers(updateOf)
	logical := s.logical()
	if logical {
		want = nil // the writes pay nothing: Watch reads the replication slot
	}
	old, missing := false, false
	for _, n := range names {
		old = old || strings.HasPrefix(n, strings.ToLower(pages)+"_")
	}
	for _, tr := range want {
		missing = missing || !tr.fn && !contains(names, strings.ToLower(tr.name))
	}
	if !old && !missing && haveTrig.Valid && haveTrig.Int64 == trig && haveLayout.Valid && haveLayout.Int64 == layout {
		return nil // installed as this configuration wants it
	}
	if old || missing || !haveTrig.Valid || haveTrig.Int64 != trig {
		// MariaDB replaces a trigger in one statement; MySQL, whose DDL
		// is not transactional either, drops it first, and a write in
		// between is not recorded.
		replace := s.dialect == MySQL && isMariaDB(ctx, db)
		drops := s.dropTriggers(true)
		if replace {
			drops = s.dropTriggers(true)[3:] // the earlier version's only
		}
		if logical {
			drops = append(drops, "DROP FUNCTION IF EXISTS "+changesName(s.sum.table)+"()")
		}
		for _, q := range drops {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, tr := range want {
			q := tr.ddl
			if replace {
				q = strings.Replace(q, "CREATE TRIGGER", "CREATE OR REPLACE TRIGGER", 1)
			}
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	var fill []string
	if logical && (!haveTrig.Valid || haveTrig.Int64 != trig) {
		// From the change table to logical decoding: what it still holds
		// is counted again below (the layout differs), and nothing reads
		// it any more.
		fill = append(fill, "DELETE FROM "+changesName(s.sum.table))
	}
	switch {
	case haveLayout.Valid && haveLayout.Int64 == layout:
	case !haveLayout.Valid && old:
		// The summary of the recounting triggers, whose counts were right
		// up to now: its pages keep their change times, except those it
		// never counted a write to, whose time was their newest lastmod
		// and whose clocks were the Sitemap's; they take the time it is.
		fill = append(fill, "UPDATE "+pages+" SET changed_at = "+s.dbNow()+" WHERE changes = 0 AND page > 0", s.fillPages(true))
	default:
		// Installed afresh, or for other pages: counted from the rows.
		// A page's time is its newest lastmod when first installed; when
		// the pages change, the time it is (every page may differ).
		fill = append(fill, "DELETE FROM "+pages, s.fillPages(haveLayout.Valid))
	}
	if s.sum.rowTimes() && (!haveTrig.Valid || haveTrig.Int64 != trig) {
		// Installed afresh or for other columns (triggers that were only
		// dropped come back without it: a fill would not mend what they
		// missed, only add rows that have no time).
		fill = append(fill, s.fillRowTimes())
	}
	fill = append(fill, s.upsertPage("0", strconv.FormatInt(layout, 10), strconv.FormatInt(trig, 10), "NULL", ""))
	for _, q := range fill {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// isMariaDB reports whether the server is MariaDB's.
func isMariaDB(ctx context.Context, db execer) bool {
	var v string
	return db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v) == nil && strings.Contains(strings.ToLower(v), "mariadb")
}

func contains(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// fingerprints returns what row 0 of the summary records: a hash of the
// pages' layout, and one of the triggers' definitions (updateOf, what
// the updateOf method returned, is in them).
func (s *Source) fingerprints(updateOf []string) (layout, trig int64) {
	h := func(parts ...string) int64 {
		f := fnv.New64a()
		for _, p := range parts {
			f.Write([]byte(p))
			f.Write([]byte{0})
		}
		return int64(f.Sum64() >> 1) // positive, for every database's BIGINT
	}
	layout = h(installVersion, strconv.FormatInt(s.size, 10), strconv.FormatInt(s.start, 10), s.sum.filter)
	parts := []string{installVersion, s.sum.lastMod, strconv.FormatBool(s.sum.rowTimes())}
	if s.logical() {
		// Installed for logical decoding: no trigger; a change of capture
		// counts every page again (what one missed, the other did not see).
		layout = h(installVersion, strconv.FormatInt(s.size, 10), strconv.FormatInt(s.start, 10), s.sum.filter, "logical")
		return layout, h(append(parts, "logical")...)
	}
	for _, tr := range s.changeTriggers(updateOf) {
		parts = append(parts, tr.ddl)
	}
	return layout, h(parts...)
}

// triggerNames returns the names of the triggers on the table, in lower
// case.
func (s *Source) triggerNames(ctx context.Context, db execer) ([]string, error) {
	var q string
	switch s.dialect {
	case Postgres:
		q = "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal"
	case MySQL:
		q = "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ?"
	default:
		q = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE"
	}
	rows, err := db.QueryContext(ctx, q, s.sum.table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, strings.ToLower(n))
	}
	return names, rows.Err()
}

// dropTriggers returns the statements that drop the triggers (and
// PostgreSQL functions) of this version and of the earlier one.
func (s *Source) dropTriggers(old bool) []string {
	pages, changes, t := summaryName(s.sum.table), changesName(s.sum.table), s.sum.table
	var stmts []string
	switch s.dialect {
	case Postgres:
		stmts = []string{"DROP TRIGGER IF EXISTS " + changes + "_insdel ON " + t, "DROP TRIGGER IF EXISTS " + changes + "_upd ON " + t}
		if old {
			stmts = append(stmts, "DROP TRIGGER IF EXISTS "+pages+"_sync ON "+t, "DROP FUNCTION IF EXISTS "+pages+"_sync()")
		}
	default:
		for _, suffix := range []string{"_ins", "_del", "_upd"} {
			stmts = append(stmts, "DROP TRIGGER IF EXISTS "+changes+suffix)
		}
		if old {
			for _, suffix := range []string{"_ins", "_del", "_upd", "_upd_old", "_ins_lock", "_del_lock", "_upd_lock",
				"_rows_ins", "_rows_del", "_rows_upd", "_rows_keep"} {
				stmts = append(stmts, "DROP TRIGGER IF EXISTS "+pages+suffix)
			}
		}
	}
	return stmts
}

// RemoveSummary drops what InstallSummary made (of this version or an
// earlier one), if there is any: the triggers, the change table, the page
// summary and the row times. The table itself and its rows are left as
// they were. A Source with Config.Summary set fails its Pages until a
// summary is installed again.
func (s *Source) RemoveSummary(ctx context.Context) error {
	if err := s.sum.check(); err != nil {
		return err
	}
	stmts := s.dropTriggers(true)
	if s.dialect == Postgres {
		stmts = append(stmts, "DROP FUNCTION IF EXISTS "+changesName(s.sum.table)+"()")
	}
	for _, t := range []string{summaryName(s.sum.table), rowsName(s.sum.table), changesName(s.sum.table)} {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+t)
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlsource: remove summary: %w", err)
		}
	}
	if s.capture.want != CaptureChangeTable && s.dialect == Postgres {
		// The slot and the publication, if logical decoding made them: a
		// slot left behind would keep the server's WAL for ever.
		cfg, err := s.logicalNames()
		if err != nil {
			return err
		}
		// A Watcher just closed may leave the server's end of its
		// connection reading the slot a moment longer.
		err = dropLogical(ctx, s.db, cfg)
		for wait := 0; pgCode(err) == "55006" && wait < 30 && sleep(ctx, 100*time.Millisecond); wait++ {
			err = dropLogical(ctx, s.db, cfg)
		}
		if err != nil {
			return fmt.Errorf("sqlsource: remove summary: %w", err)
		}
	}
	return nil
}

// pagesDDL returns the statement that creates the page summary.
func (s *Source) pagesDDL() string {
	pageType, timeType := "INTEGER", ""
	switch s.dialect {
	case Postgres:
		pageType, timeType = "BIGINT", " TIMESTAMPTZ"
	case MySQL:
		pageType, timeType = "BIGINT", " DATETIME"
	}
	return "CREATE TABLE IF NOT EXISTS " + summaryName(s.sum.table) + " (page " + pageType +
		" PRIMARY KEY, listed BIGINT NOT NULL, changes BIGINT NOT NULL, changed_at" + timeType + ")"
}

// dbNow is the database's time, as the summary stores it.
func (s *Source) dbNow() string {
	switch s.dialect {
	case Postgres:
		return "now()"
	case MySQL:
		return "UTC_TIMESTAMP()"
	}
	return "strftime('%Y-%m-%d %H:%M:%S', 'now')"
}

// pageIndex returns the page index (page number - 1) of key k >= start.
func (s *Source) pageIndex(k string) string {
	start, size := strconv.FormatInt(s.start, 10), strconv.FormatInt(s.size, 10)
	if s.dialect == MySQL {
		return "((" + k + " - (" + start + ")) DIV " + size + ")"
	}
	return "((" + k + " - (" + start + ")) / " + size + ")"
}

// fillPages returns the statement that counts every page's listed rows
// into the summary. A page's time is its newest lastmod, or with now the
// database's time; a page there is keeps its own.
func (s *Source) fillPages(now bool) string {
	at := "NULL"
	switch {
	case now:
		at = s.dbNow()
	case s.sum.lastMod != "":
		at = "MAX(" + s.sum.lastMod + ")"
	}
	t, key := s.sum.table, s.sum.key
	q := "INSERT INTO " + summaryName(t) + " (page, listed, changes, changed_at) SELECT " + s.pageIndex(key) + " + 1, COUNT(*), 0, " + at +
		" FROM " + t + " WHERE " + key + " >= " + strconv.FormatInt(s.start, 10) + " AND (" + s.sum.filter + ") GROUP BY " + s.pageIndex(key) + " + 1"
	if s.dialect == MySQL {
		return q + " ON DUPLICATE KEY UPDATE listed = VALUES(listed)"
	}
	return q + " ON CONFLICT (page) DO UPDATE SET listed = excluded.listed"
}

// upsertPage returns the statement that sets a summary row. With
// changesExpr set, changes takes it on update (such as "changes + 1").
func (s *Source) upsertPage(page, listed, changes, changedAt, changesExpr string) string {
	return s.upsertPages([]string{"(" + page + ", " + listed + ", " + changes + ", " + changedAt + ")"}, changesExpr)
}

// upsertPages is upsertPage for many rows at once, each a parenthesized
// (page, listed, changes, changed_at), of distinct pages.
func (s *Source) upsertPages(values []string, changesExpr string) string {
	name := summaryName(s.sum.table)
	q := "INSERT INTO " + name + " (page, listed, changes, changed_at) VALUES " + strings.Join(values, ", ")
	upd := "changes"
	if s.dialect == MySQL {
		if changesExpr == "" {
			upd = "VALUES(changes)"
		} else {
			upd = changesExpr
		}
		return q + " ON DUPLICATE KEY UPDATE listed = VALUES(listed), changes = " + upd + ", changed_at = VALUES(changed_at)"
	}
	if changesExpr == "" {
		upd = "excluded.changes"
	} else {
		upd = name + "." + changesExpr
	}
	return q + " ON CONFLICT (page) DO UPDATE SET listed = excluded.listed, changes = " + upd + ", changed_at = excluded.changed_at"
}
