package xmlenc

// copyRun returns the length of the run of uriCopy bytes that s starts
// with: the bytes of a location that are written as they are. It looks up
// two bytes at once in uriPairs, sixteen bytes a step while more are left.
// Then the run ends within sixteen bytes: at the end of s if the last
// sixteen bytes of s are all copied, else where the next eight, four, two
// and one bytes say. (The loop walks s itself, where the compiler checks no
// index; while more than sixteen bytes are left, s[16:] is never empty, and
// the compiler knows it.)
func copyRun(s string) int {
	n, all := len(s), s
	for len(s) > 16 && uriPair(s[0], s[1])|uriPair(s[2], s[3])|uriPair(s[4], s[5])|uriPair(s[6], s[7])|
		uriPair(s[8], s[9])|uriPair(s[10], s[11])|uriPair(s[12], s[13])|uriPair(s[14], s[15]) == uriCopy {
		s = s[16:]
	}
	if len(s) <= 16 && n >= 16 {
		if t := all[n-16:]; uriPair(t[0], t[1])|uriPair(t[2], t[3])|uriPair(t[4], t[5])|uriPair(t[6], t[7])|
			uriPair(t[8], t[9])|uriPair(t[10], t[11])|uriPair(t[12], t[13])|uriPair(t[14], t[15]) == uriCopy {
			return n // the bytes left are among these sixteen
		}
	}
	if len(s) >= 8 && uriPair(s[0], s[1])|uriPair(s[2], s[3])|uriPair(s[4], s[5])|uriPair(s[6], s[7]) == uriCopy {
		s = s[8:]
	}
	if len(s) >= 4 && uriPair(s[0], s[1])|uriPair(s[2], s[3]) == uriCopy {
		s = s[4:]
	}
	if len(s) >= 2 && uriPair(s[0], s[1]) == uriCopy {
		s = s[2:]
	}
	if len(s) >= 1 && uriClass[s[0]] == uriCopy {
		s = s[1:]
	}
	return n - len(s)
}

// uriPair is uriCopy when both c0 and c1 are.
func uriPair(c0, c1 byte) uint8 { return uriPairs[uint16(c0)|uint16(c1)<<8] }

// uriPairs[c0|c1<<8] is uriCopy when both bytes c0 and c1 are, and not
// otherwise: a location's bytes are looked at two by two. (64 KiB: a
// location's bytes touch a few kilobytes of it.)
var uriPairs [1 << 16]uint8

// init fills uriPairs in place (a function returning the array would need
// a 64 KiB stack frame).
func init() {
	for i := range uriPairs {
		uriPairs[i] = uriClass[i&0xff] | uriClass[i>>8]
	}
}
