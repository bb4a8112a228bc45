// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package redact

import "strings"

// The detectors below are hand-written scanners rather than regular
// expressions: each first looks for a literal anchor with strings.Index, so
// text without any anchor costs a few memchr-speed passes and no
// allocation.

const (
	maskPrivateKey = "[REDACTED:private-key]"
	maskJWT        = "[REDACTED:jwt]"
	maskBearer     = "[REDACTED:bearer-token]"
	maskURLPass    = "[REDACTED:url-password]"
	maskAssign     = "[REDACTED:secret]"
	maskCard       = "[REDACTED:card-number]"
	maskKey        = "[REDACTED]"
	maskValue      = "[REDACTED:credential]"
	maskCookie     = "[REDACTED:cookie]"
)

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isB64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// run returns the end of the run of bytes in s from i that satisfy ok.
func run(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// boundary reports whether a token may start at s[i]: the byte before is
// not part of a word, or ends an escape such as "\n" (text that quotes a
// JSON string, like an error naming a member, has "\nAKIA…").
func boundary(s string, i int) bool {
	return i == 0 || !(isAlnum(s[i-1]) || s[i-1] == '_') || escapeBefore(s, i)
}

// escapeBefore reports whether s[i-2:i] is a backslash escape of a
// control character.
func escapeBefore(s string, i int) bool {
	if i < 2 || s[i-2] != '\\' {
		return false
	}
	switch s[i-1] {
	case 'n', 'r', 't', 'b', 'f':
		return true
	}
	return false
}

// findPEM masks PEM private keys from the BEGIN line through the END line,
// or to the end of s when the key is cut off.
func findPEM(s string, spans []span) []span {
	for from := 0; ; {
		i := strings.Index(s[from:], "-----BEGIN ")
		if i < 0 {
			return spans
		}
		start := from + i
		hdrEnd := strings.Index(s[start+11:], "-----")
		if hdrEnd < 0 {
			return spans
		}
		label := s[start+11 : start+11+hdrEnd]
		from = start + 11 + hdrEnd + 5
		if !strings.HasSuffix(label, "PRIVATE KEY") || strings.ContainsAny(label, "\n\r") {
			continue
		}
		end := len(s)
		if j := strings.Index(s[from:], "-----END "); j >= 0 {
			end = from + j + 9
			if k := strings.Index(s[end:], "-----"); k >= 0 {
				end += k + 5
			} else {
				end = len(s)
			}
		}
		spans = append(spans, span{start, end, maskPrivateKey})
		from = end
	}
}

// findJWT masks compact JWS/JWE tokens: base64url segments separated by
// dots, the first starting with "eyJ" (a base64 '{"').
func findJWT(s string, spans []span) []span {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], 'J')
		if i < 0 {
			return spans
		}
		start := from + i - 2
		if start < 0 || s[start] != 'e' || s[start+1] != 'y' {
			from += i + 1
			continue
		}
		e := run(s, start, isB64URL)
		from = e
		if !boundary(s, start) || e-start < 10 || e >= len(s) || s[e] != '.' {
			continue
		}
		e2 := run(s, e+1, isB64URL)
		if e2-(e+1) < 2 {
			continue
		}
		end := e2
		if e2 < len(s) && s[e2] == '.' {
			end = run(s, e2+1, isB64URL)
		}
		spans = append(spans, span{start, end, maskJWT})
		from = end
	}
}

// vendorKey describes an API key format with a fixed prefix.
type vendorKey struct {
	prefix  string
	mask    string
	minBody int
	maxBody int // 0: no upper bound; otherwise the body is exactly cut there
	charset func(byte) bool
	digit   bool // the body must contain a digit (guards against prose)
}

func isUpperDigit(c byte) bool { return 'A' <= c && c <= 'Z' || isDigit(c) }
func isAlnumUnderscore(c byte) bool {
	return isAlnum(c) || c == '_'
}
func isAlnumDash(c byte) bool { return isAlnum(c) || c == '-' }

var vendorKeys = [...]vendorKey{
	{"sk-ant-", "[REDACTED:anthropic-key]", 20, 0, isB64URL, false},
	{"sk-", "[REDACTED:openai-key]", 20, 0, isB64URL, true},
	{"sk_live_", "[REDACTED:stripe-key]", 16, 0, isAlnum, false},
	{"sk_test_", "[REDACTED:stripe-key]", 16, 0, isAlnum, false},
	{"rk_live_", "[REDACTED:stripe-key]", 16, 0, isAlnum, false},
	{"ghp_", "[REDACTED:github-token]", 30, 0, isAlnum, false},
	{"gho_", "[REDACTED:github-token]", 30, 0, isAlnum, false},
	{"ghu_", "[REDACTED:github-token]", 30, 0, isAlnum, false},
	{"ghs_", "[REDACTED:github-token]", 30, 0, isAlnum, false},
	{"ghr_", "[REDACTED:github-token]", 30, 0, isAlnum, false},
	{"github_pat_", "[REDACTED:github-token]", 20, 0, isAlnumUnderscore, false},
	{"glpat-", "[REDACTED:gitlab-token]", 20, 0, isB64URL, false},
	{"AKIA", "[REDACTED:aws-access-key]", 16, 16, isUpperDigit, false},
	{"ASIA", "[REDACTED:aws-access-key]", 16, 16, isUpperDigit, false},
	{"xoxb-", "[REDACTED:slack-token]", 10, 0, isAlnumDash, true},
	{"xoxp-", "[REDACTED:slack-token]", 10, 0, isAlnumDash, true},
	{"xoxa-", "[REDACTED:slack-token]", 10, 0, isAlnumDash, true},
	{"xoxr-", "[REDACTED:slack-token]", 10, 0, isAlnumDash, true},
	{"xoxs-", "[REDACTED:slack-token]", 10, 0, isAlnumDash, true},
	{"AIza", "[REDACTED:google-api-key]", 35, 35, isB64URL, false},
	{"hf_", "[REDACTED:huggingface-token]", 30, 0, isAlnum, false},
}

// findVendorKeys anchors on the '-' or '_' that ends most vendor prefixes
// (rare in prose, so strings.IndexByte skips far), and on "AKIA", "ASIA"
// and "AIza" for the rest.
func findVendorKeys(s string, spans []span) []span {
	for _, sep := range [...]byte{'-', '_'} {
		for from := 0; from < len(s); {
			i := strings.IndexByte(s[from:], sep)
			if i < 0 {
				break
			}
			p := from + i
			from = p + 1
			for k := range vendorKeys {
				v := &vendorKeys[k]
				start := p + 1 - len(v.prefix)
				if v.prefix[len(v.prefix)-1] != sep || start < 0 || s[start:p+1] != v.prefix {
					continue
				}
				if end, mask, ok := matchVendor(s, start); ok {
					spans = append(spans, span{start, end, mask})
					from = end
					break
				}
			}
		}
	}
	for _, prefix := range [...]string{"AKIA", "ASIA", "AIza"} {
		for from := 0; ; {
			i := strings.Index(s[from:], prefix)
			if i < 0 {
				break
			}
			start := from + i
			from = start + len(prefix)
			if end, mask, ok := matchVendor(s, start); ok {
				spans = append(spans, span{start, end, mask})
				from = end
			}
		}
	}
	return spans
}

// matchVendor reports whether a vendor key starts at s[start], trying the
// formats in table order so longer prefixes ("sk-ant-") win.
func matchVendor(s string, start int) (end int, mask string, ok bool) {
	if !boundary(s, start) {
		return 0, "", false
	}
	for k := range vendorKeys {
		v := &vendorKeys[k]
		if !strings.HasPrefix(s[start:], v.prefix) {
			continue
		}
		bodyStart := start + len(v.prefix)
		end := run(s, bodyStart, v.charset)
		n := end - bodyStart
		if n < v.minBody || v.maxBody > 0 && n != v.maxBody {
			continue
		}
		if v.digit && !strings.ContainsAny(s[bodyStart:end], "0123456789") {
			continue
		}
		return end, v.mask, true
	}
	return 0, "", false
}

func equalFold(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=", c) >= 0
}

// findBearer masks the credential after "Bearer " or "Basic " in an
// Authorization value, keeping the scheme word so the text stays readable.
func findBearer(s string, spans []span) []span {
	for _, scheme := range [...]string{"Bearer", "bearer", "BEARER", "Basic", "basic", "BASIC"} {
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], scheme)
			if i < 0 {
				break
			}
			start := from + i
			from = start + len(scheme)
			if !boundary(s, start) {
				continue
			}
			j := from
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j == from {
				continue
			}
			end := run(s, j, isTokenChar)
			tok := s[j:end]
			if len(tok) < 12 || (scheme[1]|0x20 == 'a' && !strings.HasSuffix(tok, "=") && !strings.ContainsAny(tok, "0123456789")) {
				continue
			}
			if !strings.ContainsAny(tok, "0123456789-._~+/=") {
				continue // prose ("bearer instruments"), not a token
			}
			spans = append(spans, span{j, end, maskBearer})
			from = end
		}
	}
	return spans
}

// findURLCredentials masks the password in scheme://user:password@host.
func findURLCredentials(s string, spans []span) []span {
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return spans
		}
		u := from + i + 3
		from = u
		colon := -1
		j := u
		for ; j < len(s); j++ {
			c := s[j]
			if c == '@' || c == '/' || c == '?' || c == '#' || c == ' ' || c == '\n' || c == '\t' || c == '"' || c == '\'' || c == '<' || c == '>' {
				break
			}
			if c == ':' && colon < 0 {
				colon = j
			}
		}
		if j >= len(s) || s[j] != '@' || colon < 0 || j == colon+1 {
			continue
		}
		spans = append(spans, span{colon + 1, j, maskURLPass})
		from = j + 1
	}
}

// assignWords are secret names that, followed by '=' or ':', introduce a
// secret value in logs, env files and config text. A longer name ending in
// one of them (DB_PASSWORD, client_secret) counts too.
var assignWords = [...]string{"password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "access_key", "private_key"}

// findAssignments anchors on '=' and ':' and looks back for a secret name,
// or for a Cookie header.
func findAssignments(s string, spans []span) []span {
	for _, op := range [...]byte{'=', ':'} {
		for from := 0; from < len(s); {
			i := strings.IndexByte(s[from:], op)
			if i < 0 {
				break
			}
			p := from + i
			from = p + 1
			// Look back over spaces and one closing quote for the name.
			e := p
			for e > 0 && (s[e-1] == ' ' || s[e-1] == '\t') {
				e--
			}
			if e > 0 && (s[e-1] == '"' || s[e-1] == '\'') {
				e--
			}
			cookie := op == ':' && isCookieHeader(s, e)
			if !cookie && !endsWithAssignWord(s[:e]) {
				continue
			}
			k := p + 1
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			quote := byte(0)
			if k < len(s) && (s[k] == '"' || s[k] == '\'') {
				quote = s[k]
				k++
			}
			if cookie && quote == 0 {
				// A Cookie or Set-Cookie header: every cookie in it may
				// be a session, so the value is masked to the end of
				// the line.
				v := k
				for v < len(s) && s[v] != '\n' && s[v] != '\r' {
					v++
				}
				for v > k && (s[v-1] == ' ' || s[v-1] == '\t') {
					v--
				}
				if v > k && !strings.HasPrefix(s[k:v], "[REDACTED") {
					spans = append(spans, span{k, v, maskCookie})
					from = v
				}
				continue
			}
			v := k
			for v < len(s) {
				c := s[v]
				if quote != 0 && c == quote || quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '&' || c == '"' || c == '\'' || c == '}') {
					break
				}
				if quote != 0 && c == '\\' {
					v++
				}
				v++
			}
			v = min(v, len(s))
			if v-k < 4 || strings.HasPrefix(s[k:v], "[REDACTED") {
				continue
			}
			spans = append(spans, span{k, v, maskAssign})
			from = v
		}
	}
	return spans
}

// isCookieHeader reports whether s[:e] ends with the header name Cookie
// (or Set-Cookie), in any case, as a word of its own.
func isCookieHeader(s string, e int) bool {
	const name = "cookie"
	return e >= len(name) && equalFold(s[e-len(name):e], name) && boundary(s, e-len(name))
}

func endsWithAssignWord(s string) bool {
	for _, w := range assignWords {
		if len(s) >= len(w) && equalFold(s[len(s)-len(w):], w) {
			return true
		}
	}
	return false
}

// findCards masks payment card numbers: 13 to 19 digits, optionally in
// groups split by single spaces or dashes, with a known issuer prefix and a
// valid Luhn check digit. The issuer prefix keeps millisecond timestamps
// and other long numbers out.
func findCards(s string, spans []span) []span {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '2' || c > '6' {
			continue
		}
		if p := i - 1; p >= 0 && (s[p] == '.' || isAlnum(s[p]) && !escapeBefore(s, i)) {
			continue
		}
		var digits [19]byte
		n := 0
		j := i
		end := i
		for j < len(s) && n < 20 {
			if isDigit(s[j]) {
				if n == 19 {
					n++
					break
				}
				digits[n] = s[j]
				n++
				j++
				end = j
				continue
			}
			if (s[j] == ' ' || s[j] == '-') && j+1 < len(s) && isDigit(s[j+1]) && n > 0 {
				j++
				continue
			}
			break
		}
		if n < 13 || n > 19 || (end < len(s) && (isAlnum(s[end]) || s[end] == '.' && end+1 < len(s) && isDigit(s[end+1]))) {
			i = max(end-1, i)
			continue
		}
		if knownIssuer(digits[:n]) && luhn(digits[:n]) {
			spans = append(spans, span{i, end, maskCard})
		}
		i = end - 1
	}
	return spans
}

func knownIssuer(d []byte) bool {
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4': // Visa
		return len(d) == 13 || len(d) == 16 || len(d) == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return len(d) == 16
	case p2 == 34 || p2 == 37: // American Express
		return len(d) == 15
	case p4 == 6011, p2 == 65, p4 >= 6440 && p4 <= 6499: // Discover
		return len(d) >= 16
	case p2 == 35: // JCB
		return len(d) >= 16
	case p2 == 36 || p2 == 38 || p2 == 30: // Diners Club
		return len(d) >= 14
	case p2 == 62: // UnionPay
		return len(d) >= 16
	}
	return false
}

func luhn(d []byte) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}
