package sqlsource

import (
	"encoding/binary"
	"testing"
	"time"
)

// BenchmarkPGDecode measures the consumer's CPU a change: one transaction
// of one UPDATE of a row of the benchmark's products table (REPLICA
// IDENTITY FULL: the old row and the new, eight columns), as Begin, Update
// and Commit, in pgoutput's text and binary formats; an insignificant
// update (stock and updated_at) and a significant one (the slug).
func BenchmarkPGDecode(b *testing.B) {
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	cols := []string{"id", "slug", "title", "published", "noindex", "stock", "updated_at", "price"}
	text := func(slug, stock, ts string) []any {
		return []any{"1234567", slug, "A product with a title of some length", "t", "f", stock, ts, "19.99"}
	}
	u64 := func(v uint64) bin { return binary.BigEndian.AppendUint64(nil, v) }
	binRow := func(slug string, stock, ts uint64) []any {
		return []any{u64(1234567), bin(slug), bin("A product with a title of some length"), bin{1}, bin{0}, u64(stock), u64(ts), bin{0, 2, 0, 0, 0, 0, 0, 2, 0, 19, 39, 16}}
	}
	for _, c := range []struct {
		name     string
		rel      pgMsg
		old, new []any
	}{
		{"text/insignificant", relationMsg(42, "products", cols...), text("item-1234567", "5", "2026-11-28 09:30:00.123456+00"), text("item-1234567", "4", "2026-11-28 09:30:01.654321+00")},
		{"text/significant", relationMsg(42, "products", cols...), text("item-1234567", "5", "2026-11-28 09:30:00.123456+00"), text("renamed-1234567", "5", "2026-11-28 09:30:01.654321+00")},
		{"binary/insignificant", relationTyped(42, "products", cols, []uint32{20, 25, 25, 16, 16, 20, 1184, 1700}), binRow("item-1234567", 5, 1), binRow("item-1234567", 4, 2)},
		{"binary/significant", relationTyped(42, "products", cols, []uint32{20, 25, 25, 16, 16, 20, 1184, 1700}), binRow("item-1234567", 5, 1), binRow("renamed-1234567", 5, 2)},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := newPGDecoder("id", []string{"slug", "published", "noindex"}, 42)
			if _, err := d.decode(c.rel); err != nil {
				b.Fatal(err)
			}
			begin, upd, commit := beginMsg(at), updateMsg(42, 'O', c.old, c.new...), commitMsg(0x1000, at)
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range []pgMsg{begin, upd, commit} {
					if _, err := d.decode(m); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
