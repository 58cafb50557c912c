package sqlsource

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The seam with the change feed's consumer, as issue 27 states it: the
// compiler checks that pgLogical implements it (feed.go declares it at
// merge).
type changeFeedSeam interface {
	next(ctx context.Context) ([]rowChange, feedPos, error)
	ack(ctx context.Context, pos feedPos) error
	close() error
}

var _ changeFeedSeam = (*pgLogical)(nil)

// pgoutput messages, written as PostgreSQL writes them (protocol 1).
type pgMsg []byte

func (m pgMsg) u8(v byte) pgMsg    { return append(m, v) }
func (m pgMsg) u16(v uint16) pgMsg { return binary.BigEndian.AppendUint16(m, v) }
func (m pgMsg) u32(v uint32) pgMsg { return binary.BigEndian.AppendUint32(m, v) }
func (m pgMsg) u64(v uint64) pgMsg { return binary.BigEndian.AppendUint64(m, v) }
func (m pgMsg) str(s string) pgMsg { return append(append(m, s...), 0) }

var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func (m pgMsg) time(t time.Time) pgMsg { return m.u64(uint64(t.Sub(pgEpoch).Microseconds())) }

// tuple writes a row: nil is NULL, toast{} an unchanged TOASTed value, a
// bin a value in binary, a string text.
func (m pgMsg) tuple(cols ...any) pgMsg {
	m = m.u16(uint16(len(cols)))
	for _, c := range cols {
		switch c := c.(type) {
		case nil:
			m = m.u8('n')
		case toast:
			m = m.u8('u')
		case string:
			m = m.u8('t').u32(uint32(len(c)))
			m = append(m, c...)
		case bin:
			m = m.u8('b').u32(uint32(len(c)))
			m = append(m, c...)
		}
	}
	return m
}

type toast struct{}

// bin is a value sent in binary (pgoutput's binary option).
type bin []byte

func relationMsg(id uint32, name string, cols ...string) pgMsg {
	m := pgMsg{'R'}.u32(id).str("public").str(name).u8('f').u16(uint16(len(cols)))
	for _, c := range cols {
		m = m.u8(0).str(c).u32(25).u32(0xffffffff)
	}
	return m
}

func beginMsg(t time.Time) pgMsg              { return pgMsg{'B'}.u64(100).time(t).u32(7) }
func commitMsg(end uint64, t time.Time) pgMsg { return pgMsg{'C'}.u8(0).u64(end - 8).u64(end).time(t) }
func insertMsg(rel uint32, cols ...any) pgMsg {
	return pgMsg{'I'}.u32(rel).u8('N').tuple(cols...)
}
func updateMsg(rel uint32, kind byte, old []any, cols ...any) pgMsg {
	m := pgMsg{'U'}.u32(rel)
	if kind != 0 {
		m = m.u8(kind).tuple(old...)
	}
	return m.u8('N').tuple(cols...)
}
func deleteMsg(rel uint32, kind byte, old ...any) pgMsg {
	return pgMsg{'D'}.u32(rel).u8(kind).tuple(old...)
}
func truncateMsg(rels ...uint32) pgMsg {
	m := pgMsg{'T'}.u32(uint32(len(rels))).u8(0)
	for _, r := range rels {
		m = m.u32(r)
	}
	return m
}

// decodeAll feeds msgs to d and returns the transactions committed.
func decodeAll(t *testing.T, d *pgDecoder, msgs ...pgMsg) []*pgTxn {
	t.Helper()
	var txns []*pgTxn
	for i, m := range msgs {
		txn, err := d.decode(m)
		if err != nil {
			t.Fatalf("message %d (%q): %v", i, m[0], err)
		}
		if txn != nil {
			txns = append(txns, txn)
		}
	}
	return txns
}

func TestPGDecodeSignificant(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 30, 0, 123456000, time.UTC)
	d := newPGDecoder("id", []string{"slug"}, 42)
	txns := decodeAll(t, d,
		relationMsg(42, "products", "id", "slug", "stock"),
		beginMsg(at),
		insertMsg(42, "1", "a", "5"),
		updateMsg(42, 'O', []any{"2", "b", "5"}, "2", "b", "4"),        // stock only
		updateMsg(42, 'O', []any{"3", "c", "5"}, "3", "c2", "5"),       // renamed
		updateMsg(42, 'O', []any{"4", "long", "5"}, "4", toast{}, "3"), // slug unchanged, TOASTed
		updateMsg(42, 'O', []any{"8", nil, "5"}, "8", "now", "5"),      // NULL to a value
		deleteMsg(42, 'O', "5", "e", "1"),                              // gone
		updateMsg(42, 'O', []any{"6", "f", "1"}, "7", "f", "1"),        // key moved
		commitMsg(0x1000, at),
	)
	if len(txns) != 1 {
		t.Fatalf("%d transactions, want 1", len(txns))
	}
	want := []rowChange{
		{Key: 1, Significant: true},
		{Key: 2},
		{Key: 3, Significant: true},
		{Key: 4},
		{Key: 8, Significant: true},
		{Key: 5, Significant: true, Deleted: true},
		{Key: 6, Significant: true, Deleted: true},
		{Key: 7, Significant: true},
	}
	for i := range want {
		want[i].Committed = at
	}
	if got := txns[0].changes; !slices.Equal(got, want) {
		t.Errorf("changes:\n got %+v\nwant %+v", got, want)
	}
	if txns[0].end != 0x1000 || txns[0].resync {
		t.Errorf("end %x resync %v, want 1000 false", txns[0].end, txns[0].resync)
	}
}

// A row written twice in a transaction is one change: significant if any
// write was, deleted if the last one deleted it.
func TestPGDecodeMerges(t *testing.T) {
	at := time.Now().UTC().Truncate(time.Microsecond)
	d := newPGDecoder("id", []string{"slug"}, 42)
	txns := decodeAll(t, d,
		relationMsg(42, "products", "id", "slug"),
		beginMsg(at),
		insertMsg(42, "1", "a"),
		deleteMsg(42, 'O', "1", "a"),
		updateMsg(42, 'O', []any{"2", "b"}, "2", "b"),
		updateMsg(42, 'O', []any{"2", "b"}, "2", "c"),
		updateMsg(42, 'O', []any{"2", "c"}, "2", "c"),
		deleteMsg(42, 'O', "3", "x"),
		insertMsg(42, "3", "y"),
		commitMsg(0x2000, at),
		beginMsg(at.Add(time.Second)),
		updateMsg(42, 'O', []any{"2", "c"}, "2", "c"),
		commitMsg(0x3000, at.Add(time.Second)),
	)
	want := []rowChange{{1, true, true, at}, {2, true, false, at}, {3, true, false, at}}
	if len(txns) != 2 || !slices.Equal(txns[0].changes, want) {
		t.Fatalf("first transaction: %+v, want %+v", txns[0].changes, want)
	}
	if want := []rowChange{{2, false, false, at.Add(time.Second)}}; !slices.Equal(txns[1].changes, want) {
		t.Errorf("second transaction: %+v, want %+v", txns[1].changes, want)
	}
}

// Without significant columns, or without the old row, every update counts.
func TestPGDecodeEveryWriteCounts(t *testing.T) {
	at := time.Now().UTC().Truncate(time.Microsecond)
	for name, d := range map[string]*pgDecoder{
		"no significant columns": newPGDecoder("id", nil, 42),
		"no old row":             newPGDecoder("id", []string{"slug"}, 42),
	} {
		t.Run(name, func(t *testing.T) {
			txns := decodeAll(t, d,
				relationMsg(42, "products", "id", "slug"),
				beginMsg(at),
				updateMsg(42, 0, nil, "2", "b"),
				deleteMsg(42, 'K', "3", nil),
				updateMsg(42, 'K', []any{"4", nil}, "5", "b"),
				commitMsg(0x2000, at),
			)
			want := []rowChange{{2, true, false, at}, {3, true, true, at}, {4, true, true, at}, {5, true, false, at}}
			if !slices.Equal(txns[0].changes, want) {
				t.Errorf("got %+v, want %+v", txns[0].changes, want)
			}
		})
	}
}

// Another table of the publication is skipped; a TRUNCATE of the table
// read asks for a resync, one of another table does not.
func TestPGDecodeOtherTablesAndTruncate(t *testing.T) {
	at := time.Now().UTC().Truncate(time.Microsecond)
	d := newPGDecoder("id", nil, 42)
	txns := decodeAll(t, d,
		relationMsg(42, "products", "id"),
		relationMsg(43, "orders", "order_no", "total"),
		beginMsg(at),
		insertMsg(43, "x", "1.5"),
		updateMsg(43, 'O', []any{"x", "1"}, "y", "2"),
		deleteMsg(43, 'K', "y", nil),
		truncateMsg(43),
		commitMsg(0x2000, at),
		beginMsg(at),
		insertMsg(42, "9"),
		truncateMsg(43, 42),
		commitMsg(0x3000, at),
	)
	if len(txns) != 2 || len(txns[0].changes) != 0 || txns[0].resync {
		t.Fatalf("another table's transaction: %+v", txns[0])
	}
	if !txns[1].resync || len(txns[1].changes) != 0 {
		t.Errorf("truncate: %+v, want a resync", txns[1])
	}
}

// A transaction of more than txnMax rows is told as a resync, not held.
func TestPGDecodeHugeTransaction(t *testing.T) {
	at := time.Now().UTC().Truncate(time.Microsecond)
	d := newPGDecoder("id", nil, 42)
	decodeAll(t, d, relationMsg(42, "products", "id"), beginMsg(at))
	for k := range txnMax + 10 {
		if _, err := d.decode(insertMsg(42, strconv.Itoa(k))); err != nil {
			t.Fatal(err)
		}
	}
	txns := decodeAll(t, d, commitMsg(0x2000, at), beginMsg(at), insertMsg(42, "1"), commitMsg(0x3000, at))
	if !txns[0].resync || len(txns[0].changes) != 0 {
		t.Errorf("huge transaction: resync %v with %d changes, want a resync alone", txns[0].resync, len(txns[0].changes))
	}
	if txns[1].resync || len(txns[1].changes) != 1 {
		t.Errorf("the next transaction: %+v, want one change", txns[1])
	}
}

func TestPGDecodeErrors(t *testing.T) {
	at := time.Now()
	rel := relationMsg(42, "products", "id", "slug")
	for name, msgs := range map[string][]pgMsg{
		"key not an integer":     {rel, beginMsg(at), insertMsg(42, "abc", "x")},
		"key NULL":               {rel, beginMsg(at), deleteMsg(42, 'K', nil, nil)},
		"change before relation": {beginMsg(at), insertMsg(42, "1", "x")},
		"change outside txn":     {rel, insertMsg(42, "1", "x")},
		"commit outside txn":     {rel, commitMsg(0x10, at)},
		"begin inside txn":       {rel, beginMsg(at), beginMsg(at)},
		"no key column":          {relationMsg(42, "products", "uuid", "slug")},
		"no significant column":  {relationMsg(42, "products", "id", "title")},
		"short tuple":            {rel, beginMsg(at), pgMsg{'I'}.u32(42).u8('N').u16(2).u8('t').u32(50)},
		"short begin":            {pgMsg{'B', 1, 2}},
		"empty":                  {pgMsg{}},
	} {
		t.Run(name, func(t *testing.T) {
			d := newPGDecoder("id", []string{"slug"}, 42)
			var err error
			for _, m := range msgs {
				if _, err = d.decode(m); err != nil {
					break
				}
			}
			if err == nil || !strings.HasPrefix(err.Error(), "pgoutput: ") {
				t.Errorf("err = %v, want a pgoutput error", err)
			}
		})
	}
}

// Bytes from a broken server or proxy end the session with an error,
// never a panic.
func TestPGDecodeGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	valid := []pgMsg{relationMsg(42, "products", "id", "slug"), beginMsg(time.Now()), insertMsg(42, "1", "a"),
		updateMsg(42, 'O', []any{"1", "a"}, "1", "b"), deleteMsg(42, 'K', "1", nil), commitMsg(0x10, time.Now())}
	for i := range 100_000 {
		d := newPGDecoder("id", []string{"slug"}, 42)
		d.decode(valid[0])
		m := slices.Clone(valid[i%len(valid)])
		switch i % 3 {
		case 0:
			m = m[:r.IntN(len(m)+1)] // cut short
		case 1:
			m[r.IntN(len(m))] = byte(r.Uint32()) // a byte changed
		default:
			m = append(m[:1], make([]byte, r.IntN(40))...)
			for j := 1; j < len(m); j++ {
				m[j] = byte(r.Uint32())
			}
		}
		d.decode(m) // must return, with or without an error
	}
}
