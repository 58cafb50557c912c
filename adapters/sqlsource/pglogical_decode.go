package sqlsource

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
)

// pgoutput decoding: the messages of a logical replication stream (the
// pgoutput plugin's protocol version 1) turned into committed
// transactions of rowChanges. PostgreSQL sends a transaction only once it
// has committed, as Begin, the changes and Commit; a Relation message
// describes a table's columns before its first change of a session, and
// again after its columns change.
//
// Whether a significant column changed is known by comparing the old row
// with the new one, which the stream carries for an UPDATE only when the
// table's REPLICA IDENTITY is FULL (setup sets it when Significant is set:
// see pglogical_slot.go). Without the old row, an UPDATE counts.

// pgDecoder decodes the messages of one replication session. It is not
// safe for concurrent use.
type pgDecoder struct {
	table       uint32   // the OID of the table read; changes to others are skipped
	key         string   // the key column, as the catalogue spells it
	significant []string // the columns whose change counts; none means every write counts
	rels        map[uint32]*pgRelation

	inTxn     bool
	committed time.Time     // the open transaction's commit time
	txn       []rowChange   // its changes, one per key, in the order first written
	index     map[int64]int // key → its place in txn
	resync    bool          // it truncated the table, or wrote more than txnMax rows
}

// txnMax is the most rows of one transaction the decoder keeps: past it,
// the transaction (a bulk update of a large part of the table) is told as
// a resync, every row may have changed, rather than held row by row.
const txnMax = 100_000

// pgRelation is what the decoder needs of a table the stream describes.
type pgRelation struct {
	name string
	skip bool  // not the table read: another of the publication's
	key  int   // the index of the key column
	sig  []int // those of the significant columns
}

// pgTxn is one committed transaction.
type pgTxn struct {
	changes []rowChange
	end     feedPos // the LSN just past its commit record
	// resync says the transaction truncated the table: every row it had
	// is gone, and the changes cannot name them.
	resync bool
}

// newPGDecoder returns a decoder for the table of OID table whose key
// column is key, counting only changes of the significant columns (all
// when empty). Names are as the catalogue spells them (unquoted, usually
// lower case).
func newPGDecoder(key string, significant []string, table uint32) *pgDecoder {
	return &pgDecoder{table: table, key: key, significant: significant, rels: map[uint32]*pgRelation{}, index: map[int64]int{}}
}

// catalogName is the name the catalogue holds for an SQL identifier: a
// quoted one unquoted, any other folded to lower case, as PostgreSQL does.
func catalogName(ident string) string {
	ident = strings.TrimSpace(ident)
	if len(ident) >= 2 && ident[0] == '"' && ident[len(ident)-1] == '"' {
		return strings.ReplaceAll(ident[1:len(ident)-1], `""`, `"`)
	}
	return strings.ToLower(ident)
}

// decode takes one pgoutput message. At a Commit it returns the
// transaction; otherwise nil. An error means the stream cannot be
// trusted from here on: the session must end and start again from the
// last acknowledged position.
func (d *pgDecoder) decode(data []byte) (*pgTxn, error) {
	msg, err := parsePgoutput(data)
	if err != nil {
		return nil, err
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		return nil, d.relation(m)
	case *pglogrepl.BeginMessage:
		if d.inTxn {
			return nil, errors.New("pgoutput: begin inside a transaction")
		}
		d.inTxn, d.committed, d.resync = true, m.CommitTime.UTC(), false
		d.txn = d.txn[:0]
		clear(d.index)
		return nil, nil
	case *pglogrepl.CommitMessage:
		if !d.inTxn {
			return nil, errors.New("pgoutput: commit outside a transaction")
		}
		d.inTxn = false
		txn := &pgTxn{changes: d.txn, end: feedPos(m.TransactionEndLSN), resync: d.resync}
		d.txn = nil // handed over
		return txn, nil
	case *pglogrepl.InsertMessage:
		rel, err := d.relationOf(m.RelationID)
		if err != nil {
			return nil, err
		}
		if rel.skip {
			return nil, nil
		}
		k, err := rel.keyOf(m.Tuple)
		if err != nil {
			return nil, err
		}
		d.add(rowChange{Key: k, Significant: true})
	case *pglogrepl.UpdateMessage:
		return nil, d.update(m)
	case *pglogrepl.DeleteMessage:
		rel, err := d.relationOf(m.RelationID)
		if err != nil {
			return nil, err
		}
		if rel.skip {
			return nil, nil
		}
		k, err := rel.keyOf(m.OldTuple)
		if err != nil {
			return nil, err
		}
		d.add(rowChange{Key: k, Significant: true, Deleted: true})
	case *pglogrepl.TruncateMessage:
		if !d.inTxn {
			return nil, errors.New("pgoutput: truncate outside a transaction")
		}
		for _, id := range m.RelationIDs {
			if id == d.table {
				d.resync = true
				d.txn = d.txn[:0] // gone with the rest
				clear(d.index)
			}
		}
	}
	// Origin, Type and logical decoding messages say nothing of rows.
	return nil, nil
}

// parsePgoutput parses one message. pglogrepl trusts the lengths a
// message declares; a malformed one from a broken server or proxy must
// end the session with an error, not the process with a panic.
func parsePgoutput(data []byte) (msg pglogrepl.Message, err error) {
	if len(data) == 0 {
		return nil, errors.New("pgoutput: empty message")
	}
	if err := checkSizes(data); err != nil {
		return nil, err
	}
	defer func() {
		if recover() != nil {
			msg, err = nil, fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
		}
	}()
	msg, err = pglogrepl.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("pgoutput: %w", err)
	}
	return msg, nil
}

// checkSizes checks the sizes that pglogrepl allocates by before it
// parses: a value's declared length, which must fit in the message, and a
// TRUNCATE's count of tables. A corrupt length of 4 GB would otherwise be
// allocated.
func checkSizes(data []byte) error {
	bad := fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
	b := data[1:]
	switch data[0] {
	case 'T':
		if len(b) < 5 || uint64(len(b)-5) < 4*uint64(binary.BigEndian.Uint32(b)) {
			return bad
		}
		return nil
	case 'I', 'U', 'D':
	default:
		return nil
	}
	if len(b) < 5 {
		return bad
	}
	b = b[4:] // the relation
	for len(b) > 0 {
		kind := b[0]
		b = b[1:]
		if kind != 'N' && kind != 'K' && kind != 'O' {
			return bad
		}
		if len(b) < 2 {
			return bad
		}
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		for range n {
			if len(b) < 1 {
				return bad
			}
			kind := b[0]
			b = b[1:]
			if kind != 't' && kind != 'b' {
				continue
			}
			if len(b) < 4 || uint64(len(b)-4) < uint64(binary.BigEndian.Uint32(b)) {
				return bad
			}
			b = b[4+binary.BigEndian.Uint32(b):]
		}
	}
	return nil
}

// relation keeps a table's description, finding the key column and the
// significant ones among its columns.
func (d *pgDecoder) relation(m *pglogrepl.RelationMessage) error {
	rel := &pgRelation{name: m.Namespace + "." + m.RelationName, key: -1}
	if m.RelationID != d.table {
		rel.skip = true
		d.rels[m.RelationID] = rel
		return nil
	}
	where := map[string]int{}
	for i, c := range m.Columns {
		where[c.Name] = i
	}
	k, ok := where[d.key]
	if !ok {
		return fmt.Errorf("pgoutput: table %s has no key column %q", rel.name, d.key)
	}
	rel.key = k
	for _, name := range d.significant {
		i, ok := where[name]
		if !ok {
			return fmt.Errorf("pgoutput: table %s has no significant column %q", rel.name, name)
		}
		rel.sig = append(rel.sig, i)
	}
	d.rels[m.RelationID] = rel
	return nil
}

func (d *pgDecoder) relationOf(id uint32) (*pgRelation, error) {
	if !d.inTxn {
		return nil, errors.New("pgoutput: change outside a transaction")
	}
	rel := d.rels[id]
	if rel == nil {
		return nil, fmt.Errorf("pgoutput: change to relation %d before its description", id)
	}
	return rel, nil
}

// update decodes an UPDATE: a change of the key is the old key's row gone
// and the new key's come; otherwise it counts if a significant column
// changed, or if it cannot be told (no old row, or nothing significant
// named).
func (d *pgDecoder) update(m *pglogrepl.UpdateMessage) error {
	rel, err := d.relationOf(m.RelationID)
	if err != nil || rel.skip {
		return err
	}
	k, err := rel.keyOf(m.NewTuple)
	if err != nil {
		return err
	}
	if m.OldTuple != nil {
		old, err := rel.keyOf(m.OldTuple)
		if err != nil {
			return err
		}
		if old != k {
			d.add(rowChange{Key: old, Significant: true, Deleted: true})
			d.add(rowChange{Key: k, Significant: true})
			return nil
		}
	}
	sig := len(d.significant) == 0 || m.OldTupleType != pglogrepl.UpdateMessageTupleTypeOld ||
		rel.changed(m.OldTuple, m.NewTuple)
	d.add(rowChange{Key: k, Significant: sig})
	return nil
}

// changed reports whether a significant column differs between the old
// row and the new one. An unchanged TOASTed value ('u') in the new row is
// the old one.
func (r *pgRelation) changed(old, new *pglogrepl.TupleData) bool {
	for _, i := range r.sig {
		if i >= len(old.Columns) || i >= len(new.Columns) {
			return true
		}
		o, n := old.Columns[i], new.Columns[i]
		if n.DataType == pglogrepl.TupleDataTypeToast {
			continue
		}
		if o.DataType != n.DataType || !bytes.Equal(o.Data, n.Data) {
			return true
		}
	}
	return false
}

// keyOf reads the key column of a row, sent as text.
func (r *pgRelation) keyOf(t *pglogrepl.TupleData) (int64, error) {
	if t == nil || r.key >= len(t.Columns) {
		return 0, fmt.Errorf("pgoutput: a change to %s without its key column", r.name)
	}
	c := t.Columns[r.key]
	if c.DataType != pglogrepl.TupleDataTypeText {
		return 0, fmt.Errorf("pgoutput: the key of a change to %s is not sent as text (kind %q): is the key column in the table's replica identity?", r.name, c.DataType)
	}
	k, err := strconv.ParseInt(string(c.Data), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("pgoutput: the key %q of a change to %s is not an integer", c.Data, r.name)
	}
	return k, nil
}

// add adds a row's change to the open transaction: a row written twice
// is one change, significant if either write was, and deleted if the last
// one deleted it.
func (d *pgDecoder) add(c rowChange) {
	if d.resync {
		return // every row is told already
	}
	c.Committed = d.committed
	if i, ok := d.index[c.Key]; ok {
		p := &d.txn[i]
		p.Significant = p.Significant || c.Significant
		p.Deleted = c.Deleted
		return
	}
	if len(d.txn) == txnMax {
		d.resync = true
		d.txn = d.txn[:0]
		clear(d.index)
		return
	}
	d.index[c.Key] = len(d.txn)
	d.txn = append(d.txn, c)
}
