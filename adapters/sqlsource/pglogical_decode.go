package sqlsource

import (
	"encoding/binary"
	"errors"
	"fmt"
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

	oldRow, newRow []rowCol // the columns of the row message being read (pglogical_rows.go)
}

// txnMax is the most rows of one transaction the decoder keeps: past it,
// the transaction (a bulk update of a large part of the table) is told as
// a resync, every row may have changed, rather than held row by row.
const txnMax = 100_000

// pgRelation is what the decoder needs of a table the stream describes.
type pgRelation struct {
	name string
	skip bool   // not the table read: another of the publication's
	key  int    // the index of the key column
	typ  uint32 // the key column's type OID, to read it in binary
	sig  []int  // those of the significant columns
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
	if len(data) > 0 {
		switch data[0] {
		case 'I', 'U', 'D':
			return nil, d.rowMessage(data) // pglogical_rows.go
		case 'B':
			return nil, d.begin(data)
		case 'C':
			return d.commit(data)
		}
	}
	msg, err := parsePgoutput(data)
	if err != nil {
		return nil, err
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		return nil, d.relation(m)
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

// pgEpochUnix is PostgreSQL's epoch, 2000-01-01 UTC, in Unix seconds:
// its times are microseconds from it.
const pgEpochUnix = 946_684_800

// begin reads a Begin message: 'B', the transaction's final LSN, its
// commit time and its xid.
func (d *pgDecoder) begin(data []byte) error {
	if len(data) < 21 {
		return fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
	}
	if d.inTxn {
		return errors.New("pgoutput: begin inside a transaction")
	}
	us := int64(binary.BigEndian.Uint64(data[9:17]))
	d.inTxn, d.committed, d.resync = true, time.Unix(pgEpochUnix, 0).Add(time.Duration(us)*time.Microsecond).UTC(), false
	d.txn = d.txn[:0]
	clear(d.index)
	return nil
}

// commit reads a Commit message ('C', flags, the commit's LSN, the LSN
// past it and its time) and returns the transaction.
func (d *pgDecoder) commit(data []byte) (*pgTxn, error) {
	if len(data) < 26 {
		return nil, fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
	}
	if !d.inTxn {
		return nil, errors.New("pgoutput: commit outside a transaction")
	}
	d.inTxn = false
	txn := &pgTxn{changes: d.txn, end: feedPos(binary.BigEndian.Uint64(data[10:18])), resync: d.resync}
	d.txn = nil // handed over
	return txn, nil
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

// checkSizes checks the size that pglogrepl allocates by before it
// parses: a TRUNCATE's count of tables. A corrupt count of 4 billion
// would otherwise be allocated. (The row messages are read in place:
// pglogical_rows.go.)
func checkSizes(data []byte) error {
	b := data[1:]
	if data[0] == 'T' && (len(b) < 5 || uint64(len(b)-5) < 4*uint64(binary.BigEndian.Uint32(b))) {
		return fmt.Errorf("pgoutput: malformed %q message of %d bytes", data[0], len(data))
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
	rel.key, rel.typ = k, m.Columns[k].DataType
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
