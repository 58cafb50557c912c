package gzsplice

// The CRC-32 of two runs of bytes from the CRC-32 of each (IEEE, as gzip
// uses it). A CRC is the remainder of the message's polynomial over GF(2)
// times x^32, by the CRC's polynomial, with the register's pre- and
// post-conditioning; appending n bytes to a message multiplies its
// polynomial by x^(8n), so crc(a ‖ b) = crc(a)·x^(8n) mod P xor crc(b),
// where n is b's length: the conditioning cancels out. Polynomials are
// held reflected, as the CRC's register holds them: bit 31 is x^0.

// poly is the IEEE polynomial, reflected.
const poly = 0xedb88320

// mulMod returns a·b mod P.
func mulMod(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		// b times x: a shift toward the high powers, reduced by P.
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// powers[k] is x^(2^k) mod P.
var powers = func() (t [64]uint32) {
	t[0] = 1 << 30 // x^1
	for k := 1; k < len(t); k++ {
		t[k] = mulMod(t[k-1], t[k-1])
	}
	return t
}()

// shift returns x^(8n) mod P.
func shift(n int64) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; k, n = k+1, n>>1 {
		if n&1 != 0 {
			p = mulMod(powers[k], p)
		}
	}
	return p
}

// Combine returns the CRC-32 (IEEE) of a ‖ b from crcA, a's, crcB, b's,
// and n, b's length.
func Combine(crcA, crcB uint32, n int64) uint32 {
	return mulMod(shift(n), crcA) ^ crcB
}
