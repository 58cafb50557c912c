package sqlsource

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
)

// The row messages of pgoutput (Insert, Update, Delete), read in place:
// the decoder needs the key column and the significant ones of each row,
// and reads them as slices of the message, into column lists it reuses.
// (pglogrepl's parser allocates every column of every row and copies its
// bytes: 54 allocations a single-row update with REPLICA IDENTITY FULL on
// an eight-column table.) The message is not kept: the slices are used
// before decode returns.

// rowCol is one column of a row in a message: its kind ('t' text, 'b'
// binary, 'n' NULL, 'u' an unchanged TOASTed value) and its bytes.
type rowCol struct {
	kind byte
	data []byte
}

// readTuple reads a row (TupleData) at the start of b into cols, reused,
// and returns them and what follows; ok is false if b is malformed.
func readTuple(b []byte, cols []rowCol) (_ []rowCol, rest []byte, ok bool) {
	cols = cols[:0]
	if len(b) < 2 {
		return cols, nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	for range n {
		if len(b) < 1 {
			return cols, nil, false
		}
		c := rowCol{kind: b[0]}
		b = b[1:]
		switch c.kind {
		case 't', 'b':
			if len(b) < 4 {
				return cols, nil, false
			}
			l := binary.BigEndian.Uint32(b)
			b = b[4:]
			if uint64(len(b)) < uint64(l) {
				return cols, nil, false
			}
			c.data, b = b[:l:l], b[l:]
		case 'n', 'u':
		default:
			return cols, nil, false
		}
		cols = append(cols, c)
	}
	return cols, b, true
}

// rowMessage decodes an Insert ('I'), Update ('U') or Delete ('D').
func (d *pgDecoder) rowMessage(data []byte) error {
	bad := fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
	b := data[1:]
	if len(b) < 5 {
		return bad
	}
	rel, err := d.relationOf(binary.BigEndian.Uint32(b))
	if err != nil || rel.skip {
		return err
	}
	kind, b := b[4], b[5:]
	var ok bool
	switch data[0] {
	case 'I':
		if kind != 'N' {
			return bad
		}
		if d.newRow, _, ok = readTuple(b, d.newRow); !ok {
			return bad
		}
		k, err := rel.keyOf(d.newRow)
		if err != nil {
			return err
		}
		d.add(rowChange{Key: k, Significant: true})
	case 'D':
		if kind != 'K' && kind != 'O' {
			return bad
		}
		if d.oldRow, _, ok = readTuple(b, d.oldRow); !ok {
			return bad
		}
		k, err := rel.keyOf(d.oldRow)
		if err != nil {
			return err
		}
		d.add(rowChange{Key: k, Significant: true, Deleted: true})
	default: // 'U'
		old := byte(0)
		if kind == 'K' || kind == 'O' {
			old = kind
			if d.oldRow, b, ok = readTuple(b, d.oldRow); !ok || len(b) < 1 {
				return bad
			}
			kind, b = b[0], b[1:]
		}
		if kind != 'N' {
			return bad
		}
		if d.newRow, _, ok = readTuple(b, d.newRow); !ok {
			return bad
		}
		return d.update(rel, old)
	}
	return nil
}

// update decodes an UPDATE whose new row is d.newRow and old one, if old
// is 'K' (its key) or 'O' (all of it), d.oldRow: a change of the key is
// the old key's row gone and the new key's come; otherwise it counts if a
// significant column changed, or if it cannot be told (no old row, or
// nothing significant named).
func (d *pgDecoder) update(rel *pgRelation, old byte) error {
	k, err := rel.keyOf(d.newRow)
	if err != nil {
		return err
	}
	if old != 0 {
		was, err := rel.keyOf(d.oldRow)
		if err != nil {
			return err
		}
		if was != k {
			d.add(rowChange{Key: was, Significant: true, Deleted: true})
			d.add(rowChange{Key: k, Significant: true})
			return nil
		}
	}
	sig := len(d.significant) == 0 || old != 'O' || rel.changed(d.oldRow, d.newRow)
	d.add(rowChange{Key: k, Significant: sig})
	return nil
}

// changed reports whether a significant column differs between the old
// row and the new one, as sent (text or binary: the same value has the
// same bytes). An unchanged TOASTed value ('u') in the new row is the
// old one.
func (r *pgRelation) changed(old, new []rowCol) bool {
	for _, i := range r.sig {
		if i >= len(old) || i >= len(new) {
			return true
		}
		o, n := old[i], new[i]
		if n.kind == 'u' {
			continue
		}
		if o.kind != n.kind || !bytes.Equal(o.data, n.data) {
			return true
		}
	}
	return false
}

// keyOf reads the key column of a row, sent as text or, with pgoutput's
// binary option, as the binary form of its integer type.
func (r *pgRelation) keyOf(cols []rowCol) (int64, error) {
	if r.key >= len(cols) {
		return 0, fmt.Errorf("pgoutput: a change to %s without its key column", r.name)
	}
	c := cols[r.key]
	switch c.kind {
	case 'b':
		k, ok := binaryKey(r.typ, c.data)
		if !ok {
			return 0, fmt.Errorf("pgoutput: the key of a change to %s is %d bytes of type %d, not an integer", r.name, len(c.data), r.typ)
		}
		return k, nil
	case 't':
	default:
		return 0, fmt.Errorf("pgoutput: the key of a change to %s is not sent (kind %q): is the key column in the table's replica identity?", r.name, c.kind)
	}
	k, err := strconv.ParseInt(string(c.data), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("pgoutput: the key %q of a change to %s is not an integer", c.data, r.name)
	}
	return k, nil
}
