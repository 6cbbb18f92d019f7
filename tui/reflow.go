package tui

import "strings"

// reflow re-wraps text that was wrapped at from columns (as 'lab diagnose'
// wraps its prose at 100) to lines of at most width runes. A line
// continues the paragraph above when the wrapper broke there: the line
// above fits in from columns but not with this line's first word, and this
// line is indented at least as deep as the paragraph's first. A paragraph
// is joined and broken again at its spaces: its first line keeps its
// indent, the others take the indent of its second line (a line alone
// takes the column after its label, as in "  seeds      1-5", or two
// more spaces). Spacing inside a line is kept; a word wider than a line
// is cut.
func reflow(text string, from, width int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); {
		first := lines[i]
		para, rest := first, ""
		j := i + 1
		for ; j < len(lines) && continues(lines[j-1], lines[j], first, from); j++ {
			if rest == "" {
				rest = lines[j][:indent(lines[j])]
			}
			para += " " + strings.TrimLeft(lines[j], " ")
		}
		if j == i+1 {
			rest = hanging(first, width)
		}
		out = append(out, breakAt(para, rest, width)...)
		i = j
	}
	return strings.Join(out, "\n")
}

// continues reports whether line was broken from prev, the last line of a
// paragraph that starts with first, by a wrapper at from columns.
func continues(prev, line, first string, from int) bool {
	words := strings.Fields(line)
	if len(words) == 0 || strings.TrimSpace(prev) == "" || indent(line) < indent(first) {
		return false
	}
	n := runes(prev)
	return n <= from && n+1+runes(words[0]) > from
}

// hanging is the indent of a long line's continuations: the column after
// its label ("  seeds      1-5": the value's) when there is one within
// the first half of the line, else the line's indent and two spaces.
func hanging(line string, width int) string {
	in := indent(line)
	if k := strings.Index(line[in:], "  "); k > 0 {
		col := in + k + indent(line[in+k:])
		if col < width/2 && col < len(line) {
			return strings.Repeat(" ", runes(line[:col]))
		}
	}
	return line[:in] + "  "
}

// breakAt breaks s at its spaces into lines of at most width runes, the
// lines after the first starting with rest.
func breakAt(s, rest string, width int) []string {
	var out []string
	for runes(s) > width {
		r := []rune(s)
		cut := -1
		for k := width; k > runes(rest) && k > indent(s); k-- {
			if r[k] == ' ' {
				cut = k
				break
			}
		}
		head, tail := string(r[:width]), string(r[width:])
		if cut > 0 {
			head, tail = string(r[:cut]), string(r[cut:])
		}
		out = append(out, strings.TrimRight(head, " "))
		s = rest + strings.TrimLeft(tail, " ")
		if runes(rest) >= width {
			rest = ""
		}
	}
	return append(out, s)
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func runes(s string) int { return len([]rune(s)) }
