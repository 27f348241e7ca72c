package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// summaryWidth is the column derive's summary and verify's report stay
// within: a terminal split in two still shows them whole.
const summaryWidth = 120

// hang is how far a wrapped line is indented past its first, and a last
// cell that cannot stand beside its row, when it cannot stand under the
// row's second cell either.
const hang = "    "

// writeFitted writes rows as columns two spaces apart, each line starting
// with indent and at most width columns (counted in code points, as
// text/tabwriter counts them; only a word wider than a whole line passes). Every column but the last is as wide as its
// widest cell; the last cell is word-wrapped in the room left beside them,
// its later lines aligned under its first, or, when a word of it does not
// fit there, it goes whole onto the lines below the row, under the second
// column (or indented by hang when it does not fit there either). A row
// with fewer cells is written as is.
func writeFitted(w io.Writer, indent string, rows [][]string, width int) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, max(cols-1, 0))
	for _, r := range rows {
		if len(r) < cols {
			continue
		}
		for i := range widths {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	for _, r := range rows {
		if len(r) < cols {
			fmt.Fprintln(w, strings.TrimRight(indent+strings.Join(r, "  "), " "))
			continue
		}
		var b strings.Builder
		b.WriteString(indent)
		for i, width := range widths {
			b.WriteString(r[i])
			b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(r[i])+2))
		}
		prefix := b.String()
		last := r[cols-1]
		room := width - utf8.RuneCountInString(prefix)
		if fitsWords(last, room) {
			lines := wrap(last, room, "")
			pad := strings.Repeat(" ", utf8.RuneCountInString(prefix))
			for i, l := range lines {
				if i == 0 {
					fmt.Fprintln(w, prefix+l)
				} else {
					fmt.Fprintln(w, pad+l)
				}
			}
			if len(lines) == 0 {
				fmt.Fprintln(w, strings.TrimRight(prefix, " "))
			}
			continue
		}
		fmt.Fprintln(w, strings.TrimRight(prefix, " "))
		under := indent + hang
		if len(widths) > 1 {
			if second := indent + strings.Repeat(" ", widths[0]+2); fitsWords(last, width-utf8.RuneCountInString(second)) {
				under = second
			}
		}
		for _, l := range wrap(last, width, under) {
			fmt.Fprintln(w, l)
		}
	}
}

// fitsWords reports whether every word of s fits in room columns.
func fitsWords(s string, room int) bool {
	for _, word := range strings.Fields(s) {
		if utf8.RuneCountInString(word) > room {
			return false
		}
	}
	return room > 0
}
