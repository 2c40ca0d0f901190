package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// textTable is a tab-aligned table as kubectl prints them: columns three spaces apart,
// "-" for an empty cell (an empty one would shift the columns to its right).
type textTable struct {
	tw     *tabwriter.Writer
	indent string
}

// newTable starts a table; indent is "" for a command's own output, "  " under a heading
// of describe.
func newTable(w io.Writer, indent string, header ...string) *textTable {
	t := &textTable{tw: tabwriter.NewWriter(w, 0, 8, 3, ' ', 0), indent: indent}
	fmt.Fprintf(t.tw, "%s%s\n", indent, strings.Join(header, "\t"))
	return t
}

func (t *textTable) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		}
	}
	fmt.Fprintf(t.tw, "%s%s\n", t.indent, strings.Join(cells, "\t"))
}

func (t *textTable) flush() error { return t.tw.Flush() }
