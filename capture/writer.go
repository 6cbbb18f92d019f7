package capture

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Options describe a capture file.
type Options struct {
	// Epoch is the wall time of Event.At 0: the Unix epoch for a
	// simulated session (its timestamps are its true time), the start for
	// the relay.
	Epoch time.Time
	// Client and Server are the addresses of events that carry none
	// (default SimClient and SimServer).
	Client, Server netip.AddrPort
	// Application and Comment go in the file's section header; Sides
	// describe the two interfaces (ClientSide, ServerSide).
	Application string
	Comment     string
	Sides       [2]string
}

// maxPayload is the largest UDP payload an IPv4 packet carries (its total
// length counts the IP header), maxPayload6 an IPv6 one's (its payload
// length counts the UDP header only); longer payloads are captured cut
// to it (the packet's length stays whole).
const (
	maxPayload  = 65535 - 20 - 8
	maxPayload6 = 65535 - 8
)

// Writer writes events as a pcapng file: one section, two interfaces of
// raw IP (0 the client's side of the link, 1 the server's), nanosecond
// timestamps, every packet with its fate as a comment (opt_comment).
// Events are written in the order given; a caller that gives them in
// time order (as the session and the relay do) makes a file in time
// order.
type Writer struct {
	ng      *pcapgo.NgWriter
	o       Options
	payload []byte
	pkt     []byte
	comment []byte
	counts  [2]uint64
	drops   [2]uint64
	last    time.Duration
	err     error
}

// NewWriter writes the section header and the two interfaces to w.
func NewWriter(w io.Writer, o Options) (*Writer, error) {
	if !o.Client.IsValid() {
		o.Client = SimClient
	}
	if !o.Server.IsValid() {
		o.Server = SimServer
	}
	if o.Application == "" {
		o.Application = "jitterlab"
	}
	// The section names no machine, so the same session writes the same
	// bytes everywhere.
	ng, err := pcapgo.NewNgWriterInterface(w, pcapgo.NgInterface{Name: ClientSide.String(), Description: o.Sides[ClientSide],
		LinkType: layers.LinkTypeRaw, TimestampResolution: 9},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: o.Application, Comment: o.Comment}})
	if err != nil {
		return nil, err
	}
	if _, err := ng.AddInterface(pcapgo.NgInterface{Name: ServerSide.String(), Description: o.Sides[ServerSide],
		LinkType: layers.LinkTypeRaw, TimestampResolution: 9}); err != nil {
		return nil, err
	}
	return &Writer{ng: ng, o: o}, nil
}

// Write writes e on the interface of its side. The first error is kept
// and returned by every later call.
func (w *Writer) Write(e *Event) error {
	if w.err != nil {
		return w.err
	}
	src, dst := e.Src, e.Dst
	if !src.IsValid() || !dst.IsValid() {
		src, dst = w.o.Client, w.o.Server
		if e.Dir == Down {
			src, dst = dst, src
		}
	}
	payload := e.Payload
	if payload == nil {
		w.payload = Payload(w.payload[:0], e.Kind, e.Seq, e.Size)
		payload = w.payload
	}
	whole := len(payload)
	limit := maxPayload
	if !src.Addr().Unmap().Is4() || !dst.Addr().Unmap().Is4() { // as appendIPUDP chooses
		limit = maxPayload6
	}
	payload = payload[:min(len(payload), limit)]
	w.pkt = appendIPUDP(w.pkt[:0], src, dst, uint16(e.Seq), payload)
	pkt := w.pkt
	hdr := len(pkt) - len(payload)
	w.comment = e.AppendComment(w.comment[:0])
	side := e.Side()
	ci := gopacket.CaptureInfo{Timestamp: w.o.Epoch.Add(e.At), CaptureLength: len(pkt), Length: hdr + whole, InterfaceIndex: int(side)}
	if err := w.ng.WritePacketWithOptions(ci, pkt, pcapgo.NgPacketOptions{Comments: []string{string(w.comment)}}); err != nil {
		w.err = fmt.Errorf("capture: %w", err)
		return w.err
	}
	w.counts[side]++
	w.last = max(w.last, e.At)
	return nil
}

// Dropped counts n events of a side that never reached the writer (the
// relay's capture queue was full); Close writes them in the file.
func (w *Writer) Dropped(side Side, n uint64) { w.drops[side] += n }

// Counts is how many packets were written on each side.
func (w *Writer) Counts() [2]uint64 { return w.counts }

// Close writes each interface's statistics (packets written, events
// dropped before the writer: Wireshark's Capture File Properties show
// them) and flushes the file. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	for side := range w.counts {
		st := pcapgo.NgInterfaceStatistics{LastUpdate: w.o.Epoch.Add(w.last), PacketsReceived: w.counts[side], PacketsDropped: w.drops[side]}
		if err := w.ng.WriteInterfaceStats(side, st); err != nil {
			w.err = fmt.Errorf("capture: %w", err)
			return w.err
		}
	}
	if err := w.ng.Flush(); err != nil {
		w.err = fmt.Errorf("capture: %w", err)
		return w.err
	}
	w.err = errors.New("capture: writer closed")
	return nil
}
