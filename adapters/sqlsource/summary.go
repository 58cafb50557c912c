package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"

	"github.com/freshmap/sitemap"
)

// The page summary: a table of one row per page, <table>_sitemap_pages,
// kept by triggers on the table, so that Pages reads one row per page
// instead of aggregating every row (see InstallSummary).
//
// Each trigger recounts the listed rows of the page a written row is on
// (and, for an update that moves a row to another page, of the page it
// left): one range aggregate over the key index, bounded by the page, per
// row written. That is the price of a summary that evaluates Filter
// exactly as the pages do, whatever columns it reads, and that mends
// itself: each write sets its page's count from the rows. Triggers that
// add and subtract one (a point lookup of the row through the filter,
// BEFORE a delete and AFTER an insert) would cost microseconds, but a
// count they got wrong once would stay wrong: SQLite's INSERT OR REPLACE
// deletes without delete triggers, and a PostgreSQL BEFORE trigger of the
// application's may cancel a write that ours has counted. Not done.

// plainName is an identifier that can be a trigger's or a table's name
// prefix: the summary needs a plain table and key column.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// summary holds what InstallSummary needs that New does not keep.
type summary struct {
	table, key, filter, lastMod string
	on                          bool     // Config.Summary: Pages reads the summary table
	significant                 []string // Config.Significant
	channel                     string   // the PostgreSQL triggers' notification channel (watch.go)
	countersQuery               string   // every page's change counter, for Watch
	query                       string   // the listed pages, in order
	checkQuery                  string   // reads no row, for Check
}

// summaryName returns the name of the summary table of table, and the
// prefix of its triggers and function.
func summaryName(table string) string { return table + "_sitemap_pages" }

// newSummary checks cfg's table and key for a summary, when cfg asks for one.
func newSummary(cfg Config) (summary, error) {
	sm := summary{table: strings.TrimSpace(cfg.Table), key: strings.TrimSpace(cfg.Key),
		filter: strings.TrimSpace(cfg.Filter), lastMod: strings.TrimSpace(cfg.LastMod), on: cfg.Summary}
	for _, c := range cfg.Significant {
		sm.significant = append(sm.significant, strings.TrimSpace(c))
	}
	if sm.filter == "" {
		sm.filter = "1 = 1"
	}
	sm.query = "SELECT page, listed, changes, changed_at FROM " + summaryName(sm.table) + " WHERE listed > 0 ORDER BY page"
	sm.checkQuery = "SELECT page, listed, changes, changed_at FROM " + summaryName(sm.table) + " WHERE page < 0"
	sm.countersQuery = "SELECT page, changes FROM " + summaryName(sm.table)
	sm.channel = summaryName(sm.table)
	if len(sm.channel) > 63 { // PostgreSQL's longest identifier, which a channel is
		sm.channel = sm.channel[:63]
	}
	if sm.on {
		if err := sm.check(); err != nil {
			return sm, err
		}
	}
	if len(sm.significant) > 0 && !sm.on {
		return sm, errors.New("sqlsource: Config.Significant is read only by the page summary; set Config.Summary")
	}
	for _, c := range sm.significant {
		if !plainName.MatchString(c) {
			return sm, fmt.Errorf("sqlsource: Config.Significant: %q is not a plain column name", c)
		}
	}
	if sm.rowTimes() && !plainName.MatchString(sm.lastMod) { // the triggers read OLD.<LastMod> (rowtimes.go)
		return sm, fmt.Errorf("sqlsource: with Config.Significant, Config.LastMod must be a plain column name, not %q", sm.lastMod)
	}
	return sm, nil
}

// changedSQL returns the condition, on an UPDATE's OLD and NEW rows, that
// the key or a significant column changed, or "" if every write counts.
func (s *Source) changedSQL() string {
	if len(s.sum.significant) == 0 {
		return ""
	}
	var conds []string
	for _, c := range append([]string{s.sum.key}, s.sum.significant...) {
		conds = append(conds, s.differs(c))
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// differs returns the condition, on an UPDATE's OLD and NEW rows, that
// column c changed, NULLs included.
func (s *Source) differs(c string) string {
	switch s.dialect {
	case SQLite:
		return "OLD." + c + " IS NOT NEW." + c
	case MySQL:
		return "NOT (OLD." + c + " <=> NEW." + c + ")"
	default:
		return "OLD." + c + " IS DISTINCT FROM NEW." + c
	}
}

func (sm summary) check() error {
	if !plainName.MatchString(sm.table) || !plainName.MatchString(sm.key) {
		return fmt.Errorf("sqlsource: a page summary needs a plain table name and key column, not %q and %q", sm.table, sm.key)
	}
	return nil
}

// InstallSummary creates the page summary of the Source's table: a table
// named after it, <table>_sitemap_pages (page, listed, changes,
// changed_at), filled from the rows there are, and AFTER INSERT, UPDATE
// and DELETE triggers on the table that keep it, per page, in step: the
// count of listed rows (through Config.Filter, from Config.KeyStart), a
// counter of the writes to the page, and the time of the last one. A
// Source made with Config.Summary set then lists its pages by reading one
// summary row per page.
//
// Config.Table must be a plain table name and Config.Key a plain column.
// Changing PageSize, KeyStart or Filter needs RemoveSummary and a new
// InstallSummary. Each write to the table then also recounts the listed
// rows of its page, one range aggregate over the key index (see the
// benchmarks in BENCHMARKS.md): a bulk load is faster without the
// summary, installed afterwards.
//
// Every write counts as a change of its page, even one that changes no
// URL (a row outside the filter, a column the sitemap does not read): the
// page is rebuilt and its lastmod in the index moves to the write's time.
// With Config.Significant, an UPDATE that changes none of its columns nor
// the key is not counted at all: its page's count of listed rows is not
// recounted either, so Significant must name every column Filter reads.
// With Config.LastMod too, InstallSummary also makes a table
// <table>_sitemap_rows (sitemap_key, sitemap_changed_at) of row times,
// kept by the same triggers: a counted INSERT or UPDATE sets the row's to
// the database's time, a DELETE removes it, and the first uncounted
// UPDATE of a row records its old LastMod; a row with no entry has its
// LastMod column's time. The page query reads it with a LEFT JOIN on the
// key, so each URL's lastmod moves only with a counted write. It is
// empty when installed: installing costs no write per row.
// On PostgreSQL the trigger also notifies the page on the channel
// <table>_sitemap_pages (cut to 63 bytes), for Watch: the payload is the
// page number, so a transaction sends one notification per page it wrote
// (PostgreSQL drops identical ones). A summary installed before Watch
// existed has no notification: remove it and install it again.
//
// Concurrent writers to one page take turns on its summary row: the
// trigger first bumps the row (which locks it), then recounts. On
// PostgreSQL at READ COMMITTED the recount is a new statement, which sees
// what the writer before committed. On MariaDB the bump runs in a BEFORE
// trigger and the recount is a consistent read, whose snapshot is taken
// there, after the writer before committed, for a single-statement write
// or one at READ COMMITTED; in a REPEATABLE READ transaction that read
// before it wrote, the recount may miss rows others committed to the page
// since. TestSummaryConcurrentWriters checks single-row writes from
// several connections on the three databases. A transaction that writes
// to several pages may deadlock with another that writes to them in
// another order, as with any row locks.
//
// On SQLite and PostgreSQL it runs in one transaction. On MariaDB and
// MySQL, whose DDL commits as it goes, the triggers come first and the
// fill after, so no write is missed; a failure drops what was made.
// Installing a summary that exists is an error. TRUNCATE fires no row
// triggers: after one, remove and install the summary again.
func (s *Source) InstallSummary(ctx context.Context) error {
	if err := s.sum.check(); err != nil {
		return err
	}
	stmts := s.summaryDDL()
	if s.dialect == MySQL {
		for i, q := range stmts {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				if i > 0 { // not the summary table's CREATE: don't drop a summary that was there
					s.RemoveSummary(context.WithoutCancel(ctx))
				}
				return fmt.Errorf("sqlsource: install summary: %w", err)
			}
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlsource: install summary: %w", err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlsource: install summary: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlsource: install summary: %w", err)
	}
	return nil
}

// RemoveSummary drops the summary table and triggers that InstallSummary
// made, if there are any. A Source with Config.Summary set fails its
// Pages until a summary is installed again.
func (s *Source) RemoveSummary(ctx context.Context) error {
	if err := s.sum.check(); err != nil {
		return err
	}
	name := summaryName(s.sum.table)
	var stmts []string
	switch s.dialect {
	case Postgres:
		stmts = []string{"DROP TRIGGER IF EXISTS " + name + "_sync ON " + s.sum.table,
			"DROP FUNCTION IF EXISTS " + name + "_sync()"}
	default:
		for _, t := range []string{"_ins", "_del", "_upd", "_upd_old", "_ins_lock", "_del_lock", "_upd_lock",
			"_rows_ins", "_rows_del", "_rows_upd", "_rows_keep"} {
			stmts = append(stmts, "DROP TRIGGER IF EXISTS "+name+t)
		}
	}
	stmts = append(stmts, "DROP TABLE IF EXISTS "+name, "DROP TABLE IF EXISTS "+rowsName(s.sum.table))
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlsource: remove summary: %w", err)
		}
	}
	return nil
}

// summaryDDL returns the statements that install the summary, in order:
// the table, the triggers, then the fill.
func (s *Source) summaryDDL() []string {
	name, t, key := summaryName(s.sum.table), s.sum.table, s.sum.key
	start, size := strconv.FormatInt(s.start, 10), strconv.FormatInt(s.size, 10)
	// idx(k) is the page index (page number - 1) of key k, for k >= start.
	idx := func(k string) string {
		if s.dialect == MySQL {
			return "((" + k + " - (" + start + ")) DIV " + size + ")"
		}
		return "((" + k + " - (" + start + ")) / " + size + ")"
	}
	changedType, now := "", "strftime('%Y-%m-%d %H:%M:%S', 'now')"
	pageType := "INTEGER"
	switch s.dialect {
	case Postgres:
		changedType, now, pageType = " TIMESTAMPTZ", "now()", "BIGINT"
	case MySQL:
		changedType, now, pageType = " DATETIME", "UTC_TIMESTAMP()", "BIGINT"
	}
	// bump(i) counts a write to page index i, with an upsert, which locks
	// its summary row, so that concurrent writers to one page take turns;
	// recount(i) then sets its count of listed rows, in a statement that
	// sees the rows the writer before committed; sync(i) is the two.
	bump := func(i string) string {
		ins := "INSERT INTO " + name + " (page, listed, changes, changed_at) VALUES (" + i + " + 1, 0, 1, " + now + ")"
		if s.dialect == MySQL {
			return ins + " ON DUPLICATE KEY UPDATE changes = changes + 1, changed_at = VALUES(changed_at);\n"
		}
		return ins + " ON CONFLICT (page) DO UPDATE SET changes = " + name + ".changes + 1, changed_at = excluded.changed_at;\n"
	}
	recount := func(i string) string {
		lo := "(" + start + ") + " + i + " * " + size
		count := "SELECT COUNT(*) FROM " + t + " WHERE " + key + " >= " + lo + " AND " + key + " <= " + lo + " + " +
			strconv.FormatInt(s.size-1, 10) + " AND (" + s.sum.filter + ")"
		if s.dialect == MySQL { // a plain SELECT is read without locks (see below)
			return " SELECT (" + count + ") INTO sm_n;\n UPDATE " + name + " SET listed = sm_n WHERE page = " + i + " + 1;\n"
		}
		return " UPDATE " + name + " SET listed = (" + count + ") WHERE page = " + i + " + 1;\n"
	}
	sync := func(i string) string { return bump(i) + recount(i) }
	lastMod := "NULL"
	if s.sum.lastMod != "" {
		lastMod = "MAX(" + s.sum.lastMod + ")"
	}
	stmts := []string{"CREATE TABLE " + name + " (page " + pageType + " PRIMARY KEY, listed BIGINT NOT NULL, changes BIGINT NOT NULL, changed_at" + changedType + ")"}
	nk, ok := "NEW."+key, "OLD."+key
	moved := ok + " >= " + start + " AND (" + nk + " < " + start + " OR " + idx(ok) + " <> " + idx(nk) + ")"
	// updNew is the condition of an UPDATE's count on the new row's page:
	// with Significant, only if the key or one of those columns changed
	// (a row that moved page changed its key).
	updNew, changed := nk+" >= "+start, s.changedSQL()
	if changed != "" {
		updNew += " AND " + changed
	}
	rows := s.sum.rowTimes() // keep each row's time too (rowtimes.go)
	if rows {
		stmts = append(stmts, s.rowTimeDDL())
	}
	switch s.dialect {
	case SQLite:
		stmts = append(stmts,
			"CREATE TRIGGER "+name+"_ins AFTER INSERT ON "+t+" WHEN "+nk+" >= "+start+" BEGIN\n "+sync(idx(nk))+"END",
			"CREATE TRIGGER "+name+"_del AFTER DELETE ON "+t+" WHEN "+ok+" >= "+start+" BEGIN\n "+sync(idx(ok))+"END",
			"CREATE TRIGGER "+name+"_upd_old AFTER UPDATE ON "+t+" WHEN "+moved+" BEGIN\n "+sync(idx(ok))+"END",
			"CREATE TRIGGER "+name+"_upd AFTER UPDATE ON "+t+" WHEN "+updNew+" BEGIN\n "+sync(idx(nk))+"END")
		if rows {
			stmts = append(stmts, s.rowTimeTriggers(now, changed)...)
		}
	case MySQL:
		// The bumps run BEFORE the write and the recounts AFTER it, with a
		// plain SELECT … INTO: a consistent read, without locks (a recount
		// inside the UPDATE would take shared locks on the page's rows, and
		// two writers to a page would deadlock, each holding its own row).
		// An autocommit write takes its snapshot at that SELECT, after its
		// turn on the summary row came, so it sees the writer before.
		when := func(cond, body string) string { return " IF " + cond + " THEN\n " + body + " END IF;\n" }
		isNew, isOld := nk+" >= "+start, ok+" >= "+start
		trigger := func(suffix, timing, event, body string) string {
			return "CREATE TRIGGER " + name + suffix + " " + timing + " " + event + " ON " + t + " FOR EACH ROW BEGIN\n" +
				" DECLARE sm_n BIGINT;\n" + body + "END"
		}
		var insRow, delRow, updRow string // the row times' statements
		if rows {
			insRow, delRow = when(isNew, s.rowSet(nk, now)), s.rowDel(ok)
			updRow = when("NOT ("+ok+" <=> "+nk+")", s.rowDel(ok)) + when(updNew, s.rowSet(nk, now)) +
				when("NOT "+changed+" AND "+isOld+" AND "+s.differs(s.sum.lastMod), s.rowKeep())
		}
		stmts = append(stmts,
			trigger("_ins_lock", "BEFORE", "INSERT", when(isNew, bump(idx(nk)))),
			trigger("_ins", "AFTER", "INSERT", when(isNew, recount(idx(nk)))+insRow),
			trigger("_del_lock", "BEFORE", "DELETE", when(isOld, bump(idx(ok)))),
			trigger("_del", "AFTER", "DELETE", when(isOld, recount(idx(ok)))+delRow),
			trigger("_upd_lock", "BEFORE", "UPDATE", when(moved, bump(idx(ok)))+when(updNew, bump(idx(nk)))),
			trigger("_upd", "AFTER", "UPDATE", when(moved, recount(idx(ok)))+when(updNew, recount(idx(nk)))+updRow))
	case Postgres:
		// One function for the three events; sm_old and sm_new are the page
		// indexes of the row before and after, NULL where there is none.
		// notify(i) tells Watch's listener of the page (watch.go): the
		// payload is the page number alone, so that PostgreSQL, which
		// delivers identical notifications of one transaction once, sends
		// one per page per transaction however many rows it wrote.
		skip, rowTimes := "", "" // with Significant, an UPDATE that changed none of them; the row times
		if changed != "" {
			keep := ""
			if rows {
				keep = " IF " + ok + " >= " + start + " AND " + s.differs(s.sum.lastMod) + " THEN\n " + s.rowKeep() + " END IF;\n"
			}
			skip = " IF TG_OP = 'UPDATE' THEN IF NOT " + changed + " THEN\n" + keep + " RETURN NULL; END IF; END IF;\n"
		}
		if rows {
			rowTimes = " IF TG_OP = 'DELETE' THEN\n " + s.rowDel(ok) + " ELSIF TG_OP = 'UPDATE' THEN IF " + ok + " IS DISTINCT FROM " + nk +
				" THEN\n " + s.rowDel(ok) + " END IF; END IF;\n IF sm_new IS NOT NULL THEN\n " + s.rowSet(nk, now) + " END IF;\n"
		}
		notify := func(i string) string {
			return " PERFORM pg_notify('" + s.sum.channel + "', (" + i + " + 1)::text);\n"
		}
		stmts = append(stmts,
			"CREATE FUNCTION "+name+"_sync() RETURNS trigger LANGUAGE plpgsql AS $sqlsource$\n"+
				"DECLARE sm_old bigint; sm_new bigint;\nBEGIN\n"+skip+
				" IF TG_OP <> 'INSERT' THEN IF "+ok+" >= "+start+" THEN sm_old := "+idx(ok)+"; END IF; END IF;\n"+
				" IF TG_OP <> 'DELETE' THEN IF "+nk+" >= "+start+" THEN sm_new := "+idx(nk)+"; END IF; END IF;\n"+
				" IF sm_old IS NOT NULL AND sm_old IS DISTINCT FROM sm_new THEN\n "+sync("sm_old")+notify("sm_old")+" END IF;\n"+
				" IF sm_new IS NOT NULL THEN\n "+sync("sm_new")+notify("sm_new")+" END IF;\n"+rowTimes+
				" RETURN NULL;\nEND\n$sqlsource$",
			"CREATE TRIGGER "+name+"_sync AFTER INSERT OR UPDATE OR DELETE ON "+t+" FOR EACH ROW EXECUTE FUNCTION "+name+"_sync()")
	}
	// The fill, after the triggers: on MySQL a write between the two finds
	// its row and the fill adds to it (the counts are recounts, so the
	// later one wins). The time is the page's newest lastmod, as Pages
	// reports without a summary, so installing moves no clock.
	fill := "INSERT INTO " + name + " (page, listed, changes, changed_at) SELECT " + idx(key) + " + 1, COUNT(*), 0, " + lastMod +
		" FROM " + t + " WHERE " + key + " >= " + start + " AND (" + s.sum.filter + ") GROUP BY " + idx(key) + " + 1"
	if s.dialect == MySQL {
		fill += " ON DUPLICATE KEY UPDATE listed = VALUES(listed)"
	}
	return append(stmts, fill)
}

// summaryPages lists the pages from the summary table: one row per page.
// A page's LastMod is the time it last changed, or, before any write
// since InstallSummary, its newest lastmod then; its Version is its count
// of listed rows and of writes, so every write to a page makes the
// Sitemap rebuild it, and a write that changes its bytes (a delete, an
// update out of the filter) moves its clock forward.
func (s *Source) summaryPages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) {
		rows, err := s.db.QueryContext(ctx, s.sum.query)
		if err != nil {
			yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: summary: %w", err))
			return
		}
		defer rows.Close()
		var page, listed, changes int64
		var at timeScanner
		for rows.Next() {
			if err := rows.Scan(&page, &listed, &changes, &at); err != nil {
				yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: summary: %w", err))
				return
			}
			v := make([]byte, 0, 24)
			v = append(v, 's')
			v = strconv.AppendInt(v, listed, 10)
			v = append(v, '.')
			v = strconv.AppendInt(v, changes, 10)
			info := sitemap.PageInfo{Number: page, LastMod: at.t, Version: string(v)}
			if changes > 0 && len(s.loaders) == 0 {
				// A trigger wrote it: the time of the page's last write,
				// which lasts across restarts. Not before the first write
				// (the fill's newest lastmod does not see an earlier
				// deletion), nor with Loaders, whose tables it does not see.
				info.Changed = at.t
			}
			if !yield(info, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: summary: %w", err))
		}
	}
}
