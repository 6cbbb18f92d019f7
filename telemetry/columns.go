package telemetry

import "strconv"

// Columns are the fields of both kinds, each name once, the frame's
// first: the columns of a table that holds datagrams of either kind (lab
// export --telemetry).
func Columns() []string { return append([]string(nil), names[2:]...) }

// Cells are d's fields in Columns order as the encoder writes them:
// whole numbers in digits, others in the shortest text that reads back
// the same; a column d's kind does not have is "".
func Cells(d *Datagram) []string {
	var v values
	switch d.Kind {
	case KindFrame:
		v = frameValues(&d.Frame)
	case KindTick:
		v = tickValues(&d.Tick)
	}
	cells := make([]string, len(names)-2)
	for i, f := range kindFields(d.Kind) {
		c := fieldName[d.Kind][i] - 2
		if f.integer {
			cells[c] = strconv.FormatInt(int64(v[i]), 10)
		} else {
			cells[c] = strconv.FormatFloat(v[i], 'g', -1, 64)
		}
	}
	return cells
}
