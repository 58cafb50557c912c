package robotstxt

import "strings"

// The merge of our lines into the application's robots.txt. The file is
// read line by line as Google's parser reads it (github.com/google/robotstxt,
// RFC 9309): a line is split at '#' (a comment) and at its first ':',
// or, lacking one, at whitespace between exactly two words; keys are
// compared ignoring case and by their start, with the typos Google
// accepts ("useragent", "user agent", "dissallow", …); "Sitemaps:" and
// "Site-map:" are Sitemap lines. A group is a run of user-agent lines and
// the rules after it; a user-agent line after a rule starts the next.

// lineKey is what Google's parser makes of a line's key.
type lineKey uint8

const (
	keyOther lineKey = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keySitemap
	keyContentSignal
)

// keyOf classifies a key, as Google's parser does (by its start,
// ignoring case, typos included); Content-Signal is no key of Google's.
func keyOf(field string) lineKey {
	f := strings.ToLower(field)
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(f, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("user-agent", "useragent", "user agent"):
		return keyUserAgent
	case has("allow"):
		return keyAllow
	case has("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return keyDisallow
	case has("sitemap", "site-map"):
		return keySitemap
	case f == "content-signal":
		return keyContentSignal
	}
	return keyOther
}

// splitLine splits a robots.txt line into its key and value, with any
// comment and the surrounding whitespace removed. A line without a colon
// is a key and a value if it is two words apart (Google accepts a
// forgotten colon); any other has no key: its value is the whole trimmed
// line.
func splitLine(line string) (field, value string) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	field, value, ok := strings.Cut(line, ":")
	if !ok {
		words := strings.Fields(line)
		if len(words) == 2 {
			return words[0], words[1]
		}
		return "", strings.TrimSpace(line)
	}
	return strings.TrimSpace(field), strings.TrimSpace(value)
}

// agentOf is the product token a user-agent line names, as Google reads
// it: its leading letters, '-' and '_' ("GPTBot/1.1" names GPTBot); ""
// for "*" (every agent), and for a value that starts with none of them.
func agentOf(value string) string {
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return value[:i]
		}
	}
	return value
}

// scanned is what the merge reads of the application's robots.txt.
type scanned struct {
	agents   map[string]bool // the product tokens its user-agent lines name, lower-case
	signal   bool            // it has a Content-Signal line
	eol      string          // its first line ending; "" if it has none
	insertAt int             // where a group may go: the end, or the start of a last run of user-agent lines with no rule after it
	found    []bool          // which of our lines it holds, by m.lines
}

// names reports whether the file names the agent (as Google matches a
// crawler to a group: by its product token, ignoring case).
func (sc *scanned) names(agent string) bool { return sc.agents[strings.ToLower(agent)] }

// scan reads body, line by line.
func (m *Merger) scan(body []byte) *scanned {
	sc := &scanned{agents: map[string]bool{}, found: make([]bool, len(m.lines)), insertAt: -1}
	s := string(body)
	rest := strings.TrimPrefix(s, "\ufeff") // a UTF-8 byte order mark
	for len(rest) > 0 {
		at := len(s) - len(rest)
		line := rest
		if i := strings.IndexAny(rest, "\r\n"); i < 0 {
			rest = ""
		} else {
			n := 1
			if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
				n = 2
			}
			if sc.eol == "" {
				sc.eol = rest[i : i+n]
			}
			line, rest = rest[:i], rest[i+n:]
		}
		field, value := splitLine(line)
		key := keyOf(field)
		switch key {
		case keyUserAgent:
			if sc.insertAt < 0 {
				sc.insertAt = at // a run begins: it may have no rule after it
			}
			if a := agentOf(value); a != "" {
				sc.agents[strings.ToLower(a)] = true
			}
		case keyAllow, keyDisallow:
			sc.insertAt = -1
		case keyContentSignal:
			sc.signal = true
		}
		for j, l := range m.lines {
			if !sc.found[j] && l.value == value && (strings.EqualFold(l.field, field) || l.field == "Sitemap" && key == keySitemap) {
				sc.found[j] = true
			}
		}
	}
	if sc.insertAt < 0 {
		sc.insertAt = len(body)
	}
	return sc
}

// Merge returns body with our lines merged in, and whether it added any:
// the policy's groups (appendPolicy) at sc.insertAt, and each of
// m.lines the body does not hold at the end. If that would pass
// MaxBytes, the policy is left out; if the body with our lines
// alone passes it, ok is false (the caller passes the body through
// untouched: a robots.txt read only up to the limit would lose what is
// past it). An unchanged body is returned as is.
func (m *Merger) Merge(body []byte) (out []byte, appended, ok bool) {
	sc := m.scan(body)
	if out, appended = m.mergeScanned(body, sc, m.policy); len(out) <= MaxBytes {
		return out, appended, true
	}
	if m.policy != nil {
		if out, appended = m.mergeScanned(body, sc, nil); len(out) <= MaxBytes {
			return out, appended, true
		}
	}
	return body, false, false
}

// mergeScanned is merge with the policy p (nil for none).
func (m *Merger) mergeScanned(body []byte, sc *scanned, p *Policy) ([]byte, bool) {
	eol := sc.eol
	if eol == "" {
		eol = "\n"
	}
	var block []byte
	if p != nil {
		block = sc.appendPolicy(nil, p, eol)
	}
	out := make([]byte, 0, len(body)+len(block)+len(eol)+len(m.lines)*(64+len(eol)))
	out = append(out, body[:sc.insertAt]...)
	if n := len(out); n > 0 && out[n-1] != '\n' && out[n-1] != '\r' && len(block) > 0 {
		out = append(out, eol...) // the body's last line, unended
	}
	out = append(append(out, block...), body[sc.insertAt:]...)
	added := len(out) != len(body)
	for j, l := range m.lines {
		if sc.found[j] {
			continue
		}
		if n := len(out); n > 0 && out[n-1] != '\n' && out[n-1] != '\r' {
			out = append(out, eol...)
		}
		out = append(append(out, l.text...), eol...)
		added = true
	}
	if !added {
		return body, false
	}
	return out, true
}

// appendPolicy appends the policy p's lines for a file whose scan is sc (the
// agents it names, whether it has a Content-Signal line), each ended by
// eol: a group per purpose naming the agents the file does not, then
// the Content-Signal in a group of "*". A group with no agent left is
// not written. A rule line ends each purpose's group, so a line of the
// file that follows starts a group of its own; the "*" group has none,
// which is why the caller puts it only where no group follows
// (scanned.insertAt).
func (sc *scanned) appendPolicy(out []byte, p *Policy, eol string) []byte {
	for _, g := range p.groups {
		first := true
		for _, a := range g.agents {
			if sc.names(a) {
				continue
			}
			if first { // after an empty line, for people to read; no parser ends a group there
				out = append(append(append(out, eol...), g.comment...), eol...)
				first = false
			}
			out = append(append(append(out, "User-agent: "...), a...), eol...)
		}
		if !first {
			out = append(append(out, g.rule...), eol...)
		}
	}
	if p.signal != "" && !sc.signal {
		out = append(append(append(out, eol...), "User-agent: *"...), eol...)
		out = append(append(out, p.signal...), eol...)
	}
	return out
}
