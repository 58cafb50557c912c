package sqlsource

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// relationTyped is a Relation message whose columns have the given type
// OIDs.
func relationTyped(id uint32, name string, cols []string, types []uint32) pgMsg {
	m := pgMsg{'R'}.u32(id).str("public").str(name).u8('f').u16(uint16(len(cols)))
	for i, c := range cols {
		m = m.u8(0).str(c).u32(types[i]).u32(0xffffffff)
	}
	return m
}

// TestPGDecodeBinary: with pgoutput's binary option, an integer key of
// each width (negative ones too) is read from its bytes, and an update
// counts only when a significant column's bytes differ.
func TestPGDecodeBinary(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	keys := map[uint32]func(int64) bin{
		oidInt2: func(k int64) bin { return binary.BigEndian.AppendUint16(nil, uint16(k)) },
		oidInt4: func(k int64) bin { return binary.BigEndian.AppendUint32(nil, uint32(k)) },
		oidInt8: func(k int64) bin { return binary.BigEndian.AppendUint64(nil, uint64(k)) },
	}
	const tsType = 1184 // timestamptz, sent as 8 bytes
	for typ, key := range keys {
		t.Run(map[uint32]string{oidInt2: "smallint", oidInt4: "integer", oidInt8: "bigint"}[typ], func(t *testing.T) {
			d := newPGDecoder("id", []string{"slug"}, 42)
			ts := func(us uint64) bin { return binary.BigEndian.AppendUint64(nil, us) }
			txns := decodeAll(t, d,
				relationTyped(42, "products", []string{"id", "slug", "updated_at"}, []uint32{typ, 25, tsType}),
				beginMsg(at),
				insertMsg(42, key(7), bin("a"), ts(1)),
				updateMsg(42, 'O', []any{key(-3), bin("b"), ts(1)}, key(-3), bin("b"), ts(2)),    // updated_at only
				updateMsg(42, 'O', []any{key(300), bin("c"), ts(1)}, key(300), bin("c2"), ts(1)), // renamed
				updateMsg(42, 'O', []any{key(9), bin("d"), ts(1)}, key(9), toast{}, ts(5)),       // slug TOASTed, unchanged
				deleteMsg(42, 'O', key(11), bin("e"), ts(1)),
				updateMsg(42, 'O', []any{key(12), bin("f"), ts(1)}, key(13), bin("f"), ts(1)), // key moved
				commitMsg(0x1000, at),
			)
			want := []rowChange{
				{Key: 7, Significant: true},
				{Key: -3},
				{Key: 300, Significant: true},
				{Key: 9},
				{Key: 11, Significant: true, Deleted: true},
				{Key: 12, Significant: true, Deleted: true},
				{Key: 13, Significant: true},
			}
			for i := range want {
				want[i].Committed = at
			}
			if len(txns) != 1 || !slices.Equal(txns[0].changes, want) {
				t.Fatalf("changes:\n got %+v\nwant %+v", txns, want)
			}
		})
	}
}

// A binary key of the wrong width for its type is an error that names it,
// not a wrong key and not a panic.
func TestPGDecodeBinaryBadKey(t *testing.T) {
	d := newPGDecoder("id", nil, 42)
	for _, m := range []pgMsg{relationTyped(42, "products", []string{"id"}, []uint32{oidInt8}), beginMsg(time.Now())} {
		if _, err := d.decode(m); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.decode(insertMsg(42, bin{0, 0, 0, 7}))
	if err == nil || !strings.Contains(err.Error(), "4 bytes of type 20") {
		t.Errorf("a 4-byte bigint key: %v, want an error that says so", err)
	}
}

// TestPGBinaryOK: the server sends a table's rows in binary when it can
// (PostgreSQL 14 and later, every column's type with a binary send
// function), and not when a column is of a composite type; a feed in
// binary delivers the same changes as one in text.
func TestPGBinaryOK(t *testing.T) {
	tb := newLRTable(t, 0, "slug")
	ctx := context.Background()
	var version int
	if err := tb.db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	table := func(name string) uint32 {
		var oid int64
		if err := tb.db.QueryRowContext(ctx, "SELECT to_regclass($1)::oid::bigint", name).Scan(&oid); err != nil {
			t.Fatal(err)
		}
		return uint32(oid)
	}
	ok, err := binaryOK(ctx, tb.db, table(tb.cfg.Table))
	if err != nil || ok != (version >= 140000) {
		t.Errorf("binaryOK(%s) = %v, %v on server %d; want %v", tb.cfg.Table, ok, err, version, version >= 140000)
	}
	comp := tb.cfg.Table + "_comp"
	tb.exec(t, "CREATE TABLE "+comp+" (id bigint PRIMARY KEY, at "+tb.cfg.Table+")")
	t.Cleanup(func() { tb.db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+comp) })
	if ok, err := binaryOK(ctx, tb.db, table(comp)); ok || err != nil {
		t.Errorf("binaryOK with a composite column = %v, %v; want false", ok, err)
	}
	for _, text := range []bool{false, true} {
		cfg := tb.cfg
		cfg.text = text
		f, err := newPGLogical(ctx, tb.db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := newReceived()
		stop := consume(f, r)
		n := int64(100 * (1 + boolInt(text)))
		tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'a'), (%d, 'b')", tb.cfg.Table, n, -n),
			fmt.Sprintf("UPDATE %s SET stock = 5 WHERE id = %d", tb.cfg.Table, n),
			fmt.Sprintf("UPDATE %s SET slug = 'c' WHERE id = %d", tb.cfg.Table, -n),
			fmt.Sprintf("DELETE FROM %s WHERE id = %d", tb.cfg.Table, n))
		want := map[int64][]rowChange{
			n:  {{Key: n, Significant: true}, {Key: n}, {Key: n, Significant: true, Deleted: true}},
			-n: {{Key: -n, Significant: true}, {Key: -n, Significant: true}},
		}
		waitFor(t, 20*time.Second, "the changes", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return len(r.changes[n]) >= 3 && len(r.changes[-n]) >= 2
		})
		if err := stop(); err != nil {
			t.Error(err)
		}
		f.close()
		for k, w := range want {
			got := slices.Clone(r.changes[k])
			for i := range got {
				got[i].Committed = time.Time{}
			}
			if !slices.Equal(got, w) {
				t.Errorf("text %v: changes of key %d %+v, want %+v", text, k, got, w)
			}
		}
	}
}
