package sqlsource

import "strconv"

// Row times: with Config.Significant and Config.LastMod, each row's
// content-change time is kept in a side table <table>_sitemap_rows
// (sitemap_key, sitemap_changed_at), and that time is the URL's lastmod.
// InstallSummary fills it with each row's LastMod; then Watch, not the
// writer, sets a row's time to that of each significant change it
// applies (an INSERT, or an UPDATE of the key or of a significant column)
// and removes it on a DELETE, in batches. An update of a stock count or
// of updated_at alone writes no change, so it moves no lastmod, and a
// page rebuilt for another reason keeps its bytes. A row inserted since
// the last batch Watch applied has no entry yet: its time is its LastMod
// column until then.

// rowsName returns the name of the row-time table of table.
func rowsName(table string) string { return table + "_sitemap_rows" }

// rowTimes reports whether the summary keeps row times: Significant names
// columns and there is a LastMod column to replace.
func (sm summary) rowTimes() bool { return len(sm.significant) > 0 && sm.lastMod != "" }

// rowTimeDDL returns the statement that creates the row-time table. On
// PostgreSQL its pages keep a tenth free (fillfactor 90), so that Watch's
// new time for a row is a HOT update, on the row's own page, with no new
// entry in the key's index: on 2,000,000 rows, a batch of random rows'
// times wrote a third of the WAL (1.4 against 4.4 KB a row, most of it
// the first write of a page after a checkpoint, which is written whole)
// in two thirds of the time (BENCHMARKS.md, h27cost).
func (s *Source) rowTimeDDL() string {
	keyType, timeType, with := "INTEGER", "", "" // SQLite: a rowid key; times as the summary's, or the LastMod column's
	switch s.dialect {
	case Postgres:
		keyType, timeType, with = "BIGINT", " TIMESTAMPTZ", " WITH (fillfactor = 90)"
	case MySQL:
		keyType, timeType = "BIGINT", " DATETIME"
	}
	return "CREATE TABLE IF NOT EXISTS " + rowsName(s.sum.table) + " (sitemap_key " + keyType + " PRIMARY KEY, sitemap_changed_at" + timeType + ")" + with
}

// fillRowTimes returns the statement that gives every row from KeyStart
// that has no time yet its LastMod, at installation.
func (s *Source) fillRowTimes() string {
	t, key := s.sum.table, s.sum.key
	sel := " INTO " + rowsName(t) + " (sitemap_key, sitemap_changed_at) SELECT " + key + ", " + s.sum.lastMod + " FROM " + t +
		" WHERE " + key + " >= " + strconv.FormatInt(s.start, 10)
	if s.dialect == MySQL {
		return "INSERT IGNORE" + sel
	}
	return "INSERT" + sel + " ON CONFLICT (sitemap_key) DO NOTHING"
}

// rowTimeFrom returns what the page query reads from: the table, with
// each row's time joined, and the newest time of the changes to it that
// Watch has not applied yet, which Watch will make its time: so a page
// has the same bytes before and after Watch applies a change, and the
// clock it gets for the change is the one a restart reads back. The
// change table holds what Watch has not yet applied (an interval's
// writes, while it runs). On PostgreSQL the joins are bounded by the
// page's key range too ($1 and $2), so that each is an index range scan.
func (s *Source) rowTimeFrom() string {
	rows, t := rowsName(s.sum.table), s.sum.table
	on := "sitemap_key = " + t + "." + s.sum.key
	pendingWhere := "sitemap_kind = " + strconv.Itoa(kindWrite)
	if s.dialect == Postgres {
		on += " AND sitemap_key >= $1::bigint AND sitemap_key <= $2::bigint"
		pendingWhere += " AND sitemap_key >= $1::bigint AND sitemap_key <= $2::bigint"
	}
	pending := "(SELECT sitemap_key AS sitemap_pending_key, MAX(sitemap_changed_at) AS sitemap_pending_at FROM " +
		changesName(t) + " WHERE " + pendingWhere + " GROUP BY sitemap_key) sitemap_pending"
	return t + " LEFT JOIN " + rows + " ON " + on + " LEFT JOIN " + pending + " ON sitemap_pending_key = " + t + "." + s.sum.key
}

// rowTimeLastMod returns the page query's lastmod: the time of the row's
// changes waiting for Watch, or its time, or, for a row inserted since
// Watch last applied, its LastMod column.
func (s *Source) rowTimeLastMod() string {
	return "CASE WHEN sitemap_pending_at IS NOT NULL THEN sitemap_pending_at WHEN sitemap_key IS NULL THEN " + s.sum.lastMod +
		" ELSE sitemap_changed_at END"
}
