package record

import (
	"encoding/binary"
	"time"
)

// The appenders write the fields a record is made of; a Decoder reads
// them back.

// AppendTime appends t to the nanosecond, or a zero time as one byte.
func AppendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// AppendString appends s after its length.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendClock appends c.
func AppendClock(b []byte, c Clock) []byte {
	b = AppendTime(b, c.At)
	b = AppendTime(b, c.Served)
	b = binary.LittleEndian.AppendUint64(b, c.Hash)
	var flags byte
	if c.Built {
		flags |= clockBuilt
	}
	if c.Ungiven {
		flags |= clockUngiven
	}
	return AppendString(append(b, flags), c.Version)
}
