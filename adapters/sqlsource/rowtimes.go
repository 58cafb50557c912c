package sqlsource

import "strconv"

// Row times: with Config.Significant and Config.LastMod, the summary's
// triggers also keep, per row, the time its content last changed, in a
// side table <table>_sitemap_rows (sitemap_key, sitemap_changed_at), and
// that time is the URL's lastmod. It moves only on a write the summary
// counts (an INSERT, or an UPDATE of the key or of a significant column),
// so an update of a stock count or of updated_at alone moves no lastmod,
// and a page rebuilt for another reason keeps its bytes.
//
// A row has no entry until it is first written after InstallSummary: its
// time is then its LastMod column, as before. The first UPDATE that is not
// counted and moves LastMod records the row's old LastMod (one that leaves
// LastMod as it was, such as a stock count's alone, writes nothing);
// one that is counted records the database's time; a DELETE removes the
// entry. So installing costs no write per row, and a row never written
// costs no entry.

// rowsName returns the name of the row-time table of table.
func rowsName(table string) string { return table + "_sitemap_rows" }

// rowTimes reports whether the summary keeps row times: Significant names
// columns and there is a LastMod column to replace.
func (sm summary) rowTimes() bool { return len(sm.significant) > 0 && sm.lastMod != "" }

// rowTimeDDL returns the statement that creates the row-time table.
func (s *Source) rowTimeDDL() string {
	keyType, timeType := "INTEGER", "" // SQLite: a rowid key; times as the summary's, or the LastMod column's
	switch s.dialect {
	case Postgres:
		keyType, timeType = "BIGINT", " TIMESTAMPTZ"
	case MySQL:
		keyType, timeType = "BIGINT", " DATETIME"
	}
	return "CREATE TABLE " + rowsName(s.sum.table) + " (sitemap_key " + keyType + " PRIMARY KEY, sitemap_changed_at" + timeType + ")"
}

// rowSet is the statement that sets row k's time to now, the time of a
// counted write.
func (s *Source) rowSet(k, now string) string {
	ins := "INSERT INTO " + rowsName(s.sum.table) + " (sitemap_key, sitemap_changed_at) VALUES (" + k + ", " + now + ")"
	if s.dialect == MySQL {
		return " " + ins + " ON DUPLICATE KEY UPDATE sitemap_changed_at = VALUES(sitemap_changed_at);\n"
	}
	return " " + ins + " ON CONFLICT (sitemap_key) DO UPDATE SET sitemap_changed_at = excluded.sitemap_changed_at;\n"
}

// rowKeep is the statement that records, before an UPDATE that is not
// counted can move it, the row's old LastMod as its time, if it has none.
func (s *Source) rowKeep() string {
	k, lm := "OLD."+s.sum.key, "OLD."+s.sum.lastMod
	ins := "INSERT INTO " + rowsName(s.sum.table) + " (sitemap_key, sitemap_changed_at) VALUES (" + k + ", " + lm + ")"
	if s.dialect == MySQL {
		return " " + ins + " ON DUPLICATE KEY UPDATE sitemap_key = sitemap_key;\n"
	}
	return " " + ins + " ON CONFLICT (sitemap_key) DO NOTHING;\n"
}

// rowDel is the statement that removes row k's time.
func (s *Source) rowDel(k string) string {
	return " DELETE FROM " + rowsName(s.sum.table) + " WHERE sitemap_key = " + k + ";\n"
}

// rowTimeTriggers returns SQLite's triggers that keep the row times: the
// summary's own run only for rows from KeyStart, and on a row's page.
func (s *Source) rowTimeTriggers(now, changed string) []string {
	name, t, key := summaryName(s.sum.table), s.sum.table, s.sum.key
	start := strconv.FormatInt(s.start, 10)
	nk, ok := "NEW."+key, "OLD."+key
	return []string{
		"CREATE TRIGGER " + name + "_rows_ins AFTER INSERT ON " + t + " WHEN " + nk + " >= " + start + " BEGIN\n" + s.rowSet(nk, now) + "END",
		"CREATE TRIGGER " + name + "_rows_del AFTER DELETE ON " + t + " BEGIN\n" + s.rowDel(ok) + "END",
		"CREATE TRIGGER " + name + "_rows_upd AFTER UPDATE ON " + t + " WHEN " + changed + " BEGIN\n" + s.rowDel(ok) +
			" INSERT INTO " + rowsName(t) + " (sitemap_key, sitemap_changed_at) SELECT " + nk + ", " + now + " WHERE " + nk + " >= " + start +
			" ON CONFLICT (sitemap_key) DO UPDATE SET sitemap_changed_at = excluded.sitemap_changed_at;\nEND",
		"CREATE TRIGGER " + name + "_rows_keep AFTER UPDATE ON " + t + " WHEN NOT " + changed + " AND " + ok + " >= " + start +
			" AND " + s.differs(s.sum.lastMod) + " BEGIN\n" + s.rowKeep() + "END",
	}
}

// rowTimeFrom returns what the page query reads from: the table, with
// each row's time joined. On PostgreSQL the join is bounded by the page's
// key range too ($1 and $2), so that both sides are one index range scan.
func (s *Source) rowTimeFrom() string {
	rows, t := rowsName(s.sum.table), s.sum.table
	on := "sitemap_key = " + t + "." + s.sum.key
	if s.dialect == Postgres {
		on += " AND sitemap_key >= $1::bigint AND sitemap_key <= $2::bigint"
	}
	return t + " LEFT JOIN " + rows + " ON " + on
}

// rowTimeLastMod returns the page query's lastmod: the row's time, or,
// for a row never written since InstallSummary, its LastMod column.
func (s *Source) rowTimeLastMod() string {
	return "CASE WHEN sitemap_key IS NULL THEN " + s.sum.lastMod + " ELSE sitemap_changed_at END"
}
