package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxSentenceWords is the longest prose sentence the guide and the
// explanation may hold (issue 23: short sentences).
const maxSentenceWords = 40

// inlineCode is a Markdown code span; quoted a quotation (of an output,
// in the docs); mdTarget a link's target.
var (
	inlineCode  = regexp.MustCompile("`[^`]*`")
	quoted      = regexp.MustCompile(`"[^"]*"`)
	mdTarget    = regexp.MustCompile(`\]\([^)]*\)`)
	listItem    = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s`)
	sentenceEnd = regexp.MustCompile(`[.?!]["')\]]*(\s+|$)`)
)

// proseParagraphs returns a Markdown text's prose, a paragraph or a list
// item a string: fenced blocks, tables, headings and indented code are
// left out; a code span and a quotation (an output's words, not the
// page's) count as one word, a link as its text.
func proseParagraphs(text string) []string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenced = !fenced
			flush()
			continue
		case fenced:
			continue
		case trimmed == "", strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "#"),
			strings.HasPrefix(line, "    ") && len(cur) == 0 && !listItem.MatchString(line),
			strings.HasPrefix(trimmed, "<"):
			flush()
			continue
		case listItem.MatchString(line):
			flush()
			line = listItem.ReplaceAllString(line, "")
		}
		line = strings.TrimPrefix(strings.TrimSpace(line), "> ")
		line = mdTarget.ReplaceAllString(line, "]")
		cur = append(cur, line)
	}
	flush()
	for i, p := range paras {
		p = inlineCode.ReplaceAllString(p, "CODE")
		paras[i] = quoted.ReplaceAllString(p, "QUOTE")
	}
	return paras
}

// sentences splits a paragraph after ".", "?" or "!" followed by a space
// or its end.
func sentences(para string) []string {
	var out []string
	for {
		loc := sentenceEnd.FindStringIndex(para)
		if loc == nil {
			break
		}
		out = append(out, strings.TrimSpace(para[:loc[1]]))
		para = para[loc[1]:]
	}
	if strings.TrimSpace(para) != "" {
		out = append(out, strings.TrimSpace(para))
	}
	return out
}

// The splitter on constructed text: a fenced block and a table are not
// prose, a list item is a paragraph of its own, a code span and a
// quotation (over two lines too) are one word each, and a dot inside a
// number, a span or a quotation ends nothing.
func TestSentencesOfConstructedMarkdown(t *testing.T) {
	text := "# Title\n\nOne two three. Four `a. b c` five?\nSix 0.5 \"x. y\nz\" seven!\n\n" +
		"```\nnot. prose. here.\n```\n| a. b | c. d |\n- item one. item two\n- item three\n"
	var got []string
	for _, p := range proseParagraphs(text) {
		got = append(got, sentences(p)...)
	}
	want := []string{"One two three.", "Four CODE five?", "Six 0.5 QUOTE seven!", "item one.", "item two", "item three"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences:\n%q\nwant\n%q", got, want)
	}
}

// Issue 23: the guide and the explanation speak in short sentences: no
// prose sentence runs past maxSentenceWords words (fenced blocks and
// tables are not prose).
func TestDocsSentencesAreShort(t *testing.T) {
	root := filepath.Join("..", "..", "docs")
	var long int
	for _, dir := range []string{"guide", "explanation"} {
		pages, err := filepath.Glob(filepath.Join(root, dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range pages {
			text, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range proseParagraphs(string(text)) {
				for _, s := range sentences(p) {
					if n := len(strings.Fields(s)); n > maxSentenceWords {
						long++
						t.Errorf("%s/%s: a sentence of %d words (at most %d): %s", dir, filepath.Base(page), n, maxSentenceWords, s)
					}
				}
			}
		}
	}
	if long > 0 {
		t.Logf("%d sentences over %d words", long, maxSentenceWords)
	}
}
