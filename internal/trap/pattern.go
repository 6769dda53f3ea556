package trap

import (
	"slices"
	"strings"
)

// Pattern returns the URL pattern of the canonical URL u, the unit a
// budget counts in: its host, its path and its query keys in order with
// every run of digits replaced by "N", so that /calendar/2026-11-21 and
// /calendar/2026-11-22 share the pattern /calendar/N-N-N, and
// /index.php?title=Foo and ?title=Bar do not (words are kept, numbers
// are not).
func Pattern(u string) string {
	host, path, query := splitURL(u)
	var b strings.Builder
	b.Grow(len(u)) // masking only shortens
	b.WriteString(strings.ToLower(host))
	mask(&b, path)
	if query == "" {
		return b.String()
	}
	ps := params(query)
	slices.SortStableFunc(ps, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for i, p := range ps {
		b.WriteByte("?&"[min(i, 1)])
		mask(&b, p[0])
		b.WriteByte('=')
		mask(&b, p[1])
	}
	return b.String()
}

// mask writes s with every run of ASCII digits replaced by "N".
func mask(b *strings.Builder, s string) {
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
}

// Shape returns the path of the canonical URL u (host and path, digits
// masked as in Pattern) and the shape of its query, its keys in order;
// "" for a URL without a query.
func Shape(u string) (path, shape string) {
	host, p, query := splitURL(u)
	var b strings.Builder
	b.Grow(len(host) + len(p))
	b.WriteString(strings.ToLower(host))
	mask(&b, p)
	if query == "" {
		return b.String(), ""
	}
	var keys []string
	for _, kv := range params(query) {
		keys = append(keys, kv[0])
	}
	slices.Sort(keys)
	return b.String(), "?" + strings.Join(keys, "&")
}

// Dated reports whether the canonical URL u names a date in its path or
// query: a segment or value like 2026-11-21, 2026-11, 20261121, or
// 2026/11/21 across segments, or a query key year, month, day, date or
// week with a number. Calendars and day archives are made of such URLs.
func Dated(u string) bool {
	_, path, query := splitURL(u)
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if dateValue(s) || year(s) && i+1 < len(segs) && month(segs[i+1]) {
			return true
		}
	}
	for _, p := range params(query) {
		switch strings.ToLower(p[0]) {
		case "year", "month", "day", "date", "week", "ym", "ymd":
			if p[1] != "" && digitsOnly(strings.ReplaceAll(p[1], "-", "")) {
				return true
			}
		}
		if dateValue(p[1]) {
			return true
		}
	}
	return false
}

// dateValue reports whether s is YYYY-MM, YYYY-MM-DD (or with "/" or
// "." between) or YYYYMMDD, with a plausible year and month.
func dateValue(s string) bool {
	if len(s) == 8 && digitsOnly(s) {
		return year(s[:4]) && month(s[4:6]) && s[6:] >= "01" && s[6:] <= "31"
	}
	if len(s) != 7 && len(s) != 10 || !year(s[:4]) {
		return false
	}
	sep := s[4]
	if sep != '-' && sep != '/' && sep != '.' || !month(s[5:7]) {
		return false
	}
	return len(s) == 7 || s[7] == sep && digitsOnly(s[8:]) && s[8:] >= "01" && s[8:] <= "31"
}

func year(s string) bool { return len(s) == 4 && digitsOnly(s) && s >= "1900" && s <= "2199" }
func month(s string) bool {
	return len(s) == 2 && digitsOnly(s) && s >= "01" && s <= "12" || len(s) == 1 && s >= "1" && s <= "9"
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
