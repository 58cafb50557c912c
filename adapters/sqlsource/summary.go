package sqlsource

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The page summary: a table of one row per page, <table>_sitemap_pages
// (page, listed, changes, changed_at), so that Pages reads one row per
// page instead of aggregating every row (see InstallSummary). The
// application's writes never touch it: they add a row each to the change
// table (changetable.go), and Watch, the consumer, counts the listed rows
// of the pages those changes are on, bumps their change counters and
// moves their change times (apply.go). Until Watch has applied a change,
// Pages sees it in the change table: a page with changes waiting is
// looked up in its rows, so Pages is current whether Watch runs or lags.
// A page's listed is the count of its listed rows when installed, then
// 1 or 0: whether it has one, which is all Pages needs.

// plainName is an identifier that can be a trigger's or a table's name
// prefix: the summary needs a plain table and key column.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// summary holds what InstallSummary needs that New does not keep.
type summary struct {
	table, key, filter, lastMod string
	on                          bool     // Config.Summary: Pages reads the summary table
	significant                 []string // Config.Significant
	pagesQuery                  string   // the summary's pages and those with changes waiting in the change table
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
	sm.checkQuery = "SELECT page, listed, changes, changed_at FROM " + summaryName(sm.table) + " WHERE page < 0"
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
	if sm.rowTimes() && !plainName.MatchString(sm.lastMod) { // installing reads it into the row times (rowtimes.go)
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
