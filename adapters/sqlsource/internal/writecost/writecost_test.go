package writecost

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"

	_ "modernc.org/sqlite"
)

// TestRun runs the benchmark small on SQLite: every case in every mode,
// a row each, the change table empty after them, commit → bytes, and
// nothing left by Close.
func TestRun(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "w.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	ctx := context.Background()
	var out bytes.Buffer
	b, err := Open(ctx, Config{DB: db, Dialect: sqlsource.SQLite, Rows: PageSize, Writers: 8, Dur: 50 * time.Millisecond, Rounds: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if b.Writers != 1 {
		t.Errorf("SQLite with %d writers, want 1", b.Writers)
	}
	modes := []Mode{b.Off(), b.Triggers(), b.On(), {Name: "off again", Start: b.Off().Start}}
	if err := b.Run(ctx, modes); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + b.Table + "_sitemap_changes").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d changes left: each mode's run is applied before the next", n)
	}
	if err := b.Lag(ctx, "change table", b.WatchConsumer, 2); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, c := range b.cases() {
		for _, m := range modes {
			row := "| " + c.name + " | " + m.Name + " | "
			if !strings.Contains(text, row) {
				t.Errorf("no row %q in\n%s", row, text)
			}
		}
	}
	if strings.Contains(text, "| 0 |") {
		t.Errorf("a run wrote nothing:\n%s", text)
	}
	// Each probe's change is served within 30 s; under the race detector a
	// 50,000-URL build beside the writers can take longer on a loaded
	// machine (CI once), so there the line only has to be there.
	want := "commit → new bytes served (change table), 2 probes (0 not served"
	if raceOn {
		want = "commit → new bytes served (change table), 2 probes ("
	}
	if !strings.Contains(text, want) {
		t.Errorf("no %q line in\n%s", want, text)
	}
	var left int
	if err := db.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE ?", b.Table+"%").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("Close left %d tables and triggers", left)
	}
}

// TestOpenRefuses: a table smaller than a page, no writer or no duration.
func TestOpenRefuses(t *testing.T) {
	for _, c := range []Config{{Rows: 10, Writers: 1, Dur: time.Second, Rounds: 1}, {Rows: PageSize, Writers: 0, Dur: time.Second, Rounds: 1},
		{Rows: PageSize, Writers: 1, Rounds: 1}} {
		c.Dialect = sqlsource.Postgres
		if _, err := Open(context.Background(), c); err == nil {
			t.Errorf("Open(%+v): no error", c)
		}
	}
}
