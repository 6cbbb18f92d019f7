package live

import (
	"fmt"
	"net"
	"time"

	"jitterlab/capture"
	"jitterlab/lab"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
)

// openCaptures opens the run's --pcap and --record files (either may be
// ""), or returns nil when neither is asked for.
func openCaptures(o *Options, listen net.Addr) (*proxyrec.Capture, error) {
	if o.Pcap == "" && o.Record == "" {
		return nil, nil
	}
	var outs []File
	fail := func(err error) (*proxyrec.Capture, error) {
		for _, f := range outs {
			f.Abort()
		}
		return nil, err
	}
	var pw *capture.Writer
	var rw *recordings.Writer
	if o.Pcap != "" {
		f, err := o.Open("pcap", o.Pcap)
		if err != nil {
			return fail(err)
		}
		outs = append(outs, f)
		if pw, err = capture.NewWriter(f, capture.Options{Epoch: time.Unix(0, 0), Sides: proxyrec.Sides, Application: "jitterlab lab proxy",
			Comment: fmt.Sprintf("lab proxy %v → %s, seed %d: timestamps are wall time", listen, o.Target, o.Config.Seed)}); err != nil {
			return fail(fmt.Errorf("--pcap %s: %w", o.Pcap, err))
		}
	}
	if o.Record != "" {
		f, err := o.Open("record", o.Record)
		if err != nil {
			return fail(err)
		}
		outs = append(outs, f)
		if rw, err = recordings.NewWriter(f, proxyrec.Header(lab.HeaderOf(o.Config, o.Name, 0))); err != nil {
			return fail(fmt.Errorf("--record %s: %w", o.Record, err))
		}
	}
	ta, _ := net.ResolveUDPAddr("udp", o.Target)
	files := make([]proxyrec.Committer, len(outs))
	for i, f := range outs {
		files[i] = f
	}
	return proxyrec.New(proxyrec.Options{Pcap: pw, Recording: rw, PcapName: "--pcap " + o.Pcap, RecordingName: "--record " + o.Record,
		Listen: listen, Target: ta, Files: files}), nil
}
