// Package trace reads per-packet captures of a real path into one form: per
// direction, each packet's send time on the sender's clock and its one-way
// delay (arrival on the receiver's clock minus send), or lost.
//
// Five inputs are read (docs/reference/file-formats.md has their formats): the lab's own
// per-packet log ([ReadPackets], `lab run --packets`), irtt's JSON
// ([ReadIRTT], `irtt client -o out.json`), a generic CSV a game can log
// itself ([ReadCSV], written by [WriteCSV]), pcap and pcapng captures of
// a game's UDP whose payloads carry a sequence number ([ReadPcap]: two
// captures, one on each end, or one holding both legs of a relay), and
// the proxy's recordings ([ReadRecording], `lab proxy --record`). [Read]
// picks among the text inputs by the file's first bytes; [IsPcap] and
// [IsRecording] tell the binary ones; [OpenCaptures] opens a command's
// capture files (or standard input) and names their format. Bad input is an [*Error] naming the
// file, line, column or packet, and value; every reader is bounded
// ([MaxBytes], [MaxLine], [MaxPackets]).
package trace
