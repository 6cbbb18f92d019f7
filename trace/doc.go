// Package trace reads per-packet captures of a real path into one form: per
// direction, each packet's send time on the sender's clock and its one-way
// delay (arrival on the receiver's clock minus send), or lost.
//
// Three inputs are read (docs/fit.md has their formats): the lab's own
// per-packet log ([ReadPackets], `lab run --packets`), irtt's JSON
// ([ReadIRTT], `irtt client -o out.json`) and a generic CSV a game can log
// itself ([ReadCSV], written by [WriteCSV]). [Read] picks one by the file's
// first bytes. Bad input is an [*Error] naming the file, line, column and
// value; every reader is bounded ([MaxBytes], [MaxLine], [MaxPackets]).
package trace
