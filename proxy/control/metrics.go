package control

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"jitterlab/proxy"
)

// WriteMetrics writes the relay's counters in the Prometheus text
// exposition format (version 0.0.4), written by hand: every family has its
// HELP and TYPE, counters end in _total, times are in seconds.
func WriteMetrics(w io.Writer, st proxy.Stats, au proxy.Audit) error {
	bw := bufio.NewWriter(w)
	m := metricWriter{w: bw}
	dirs := [2]proxy.Counters{st.Up, st.Down}
	perDir := func(name, typ, help string, v func(d int) float64) {
		m.family(name, typ, help)
		for d := range dirs {
			m.sample(name, v(d), "direction", proxy.Dir(d).String())
		}
	}
	m.family("jitterlab_proxy_clients", "gauge", "Client addresses relayed for now.")
	m.sample("jitterlab_proxy_clients", float64(st.Flows))
	m.family("jitterlab_proxy_clients_seen_total", "counter", "Client addresses ever relayed for (a client back after expiry counts again).")
	m.sample("jitterlab_proxy_clients_seen_total", float64(st.FlowsSeen))
	m.family("jitterlab_proxy_clients_removed_total", "counter", "Clients removed, by reason.")
	m.sample("jitterlab_proxy_clients_removed_total", float64(st.Expired), "reason", "idle")
	m.sample("jitterlab_proxy_clients_removed_total", float64(st.Evicted), "reason", "evicted")
	m.family("jitterlab_proxy_refused_total", "counter", "Datagrams of new clients refused, not relayed: every place held by a conversation active in the last second.")
	m.sample("jitterlab_proxy_refused_total", float64(st.Refused))
	perDir("jitterlab_proxy_received_total", "counter", "Datagrams that reached the proxy's socket (including those the kernel dropped).",
		func(d int) float64 { return float64(dirs[d].Received + dirs[d].KernelDropped) })
	m.family("jitterlab_proxy_copies_total", "counter", "What became of each datagram copy, by fate.")
	for d, c := range dirs {
		dir := proxy.Dir(d).String()
		for _, f := range []struct {
			fate string
			n    uint64
		}{{"delivered", c.Delivered}, {"lost", c.Lost}, {"queue_dropped", c.QueueDropped}, {"kernel_dropped", c.KernelDropped},
			{"over_limit", c.Overflow}, {"write_failed", c.WriteFailed}, {"client_gone", c.Discarded}} {
			m.sample("jitterlab_proxy_copies_total", float64(f.n), "direction", dir, "fate", f.fate)
		}
	}
	perDir("jitterlab_proxy_duplicated_total", "counter", "Extra copies the link made.", func(d int) float64 { return float64(dirs[d].Duplicated) })
	perDir("jitterlab_proxy_reordered_total", "counter", "Copies released after a later-sent one.", func(d int) float64 { return float64(dirs[d].Reordered) })
	perDir("jitterlab_proxy_loss_bursts_total", "counter", "Runs of consecutive lost datagrams.", func(d int) float64 { return float64(dirs[d].LossBursts) })
	perDir("jitterlab_proxy_in_flight", "gauge", "Copies held until their release.", func(d int) float64 { return float64(dirs[d].InFlight) })
	perDir("jitterlab_proxy_written_bytes_total", "counter", "Payload bytes written out.", func(d int) float64 { return float64(au.Dirs[d].Bytes) })
	seconds := func(x time.Duration) float64 { return x.Seconds() }
	perDir("jitterlab_proxy_added_delay_p50_seconds", "gauge", "Median delay the proxy added, from reading a datagram to writing it.", func(d int) float64 { return seconds(au.Dirs[d].DelayP50) })
	perDir("jitterlab_proxy_added_delay_p99_seconds", "gauge", "99th percentile of the delay the proxy added.", func(d int) float64 { return seconds(au.Dirs[d].DelayP99) })
	perDir("jitterlab_proxy_added_delay_max_seconds", "gauge", "Largest delay the proxy added.", func(d int) float64 { return seconds(au.Dirs[d].DelayMax) })
	perDir("jitterlab_proxy_release_late_p99_seconds", "gauge", "99th percentile of how late copies were written after the time their link gave them.", func(d int) float64 { return seconds(au.Dirs[d].LateP99) })
	perDir("jitterlab_proxy_jitter_seconds", "gauge", "RFC 3550 interarrival jitter of the relayed stream.", func(d int) float64 { return seconds(au.Dirs[d].Jitter) })
	perDir("jitterlab_proxy_configured_latency_seconds", "gauge", "The configured one-way base delay (defaults).", func(d int) float64 { return seconds(au.Dirs[d].Configured.Latency) })
	perDir("jitterlab_proxy_configured_jitter_seconds", "gauge", "The configured jitter (defaults).", func(d int) float64 { return seconds(au.Dirs[d].Configured.Jitter) })
	perDir("jitterlab_proxy_configured_loss_ratio", "gauge", "The configured loss probability (defaults).", func(d int) float64 { return au.Dirs[d].Configured.Loss })
	flowFamily := func(name, help string, v func(f proxy.FlowDirAudit) uint64) {
		m.family(name, "counter", help)
		for _, f := range au.Flows {
			for d, fd := range f.Dirs {
				m.sample(name, float64(v(fd)), "flow", f.Addr, "direction", proxy.Dir(d).String())
			}
		}
	}
	flowFamily("jitterlab_proxy_flow_received_total", "Datagrams a live client's flow handed to its link.", func(f proxy.FlowDirAudit) uint64 { return f.Received })
	flowFamily("jitterlab_proxy_flow_written_total", "Copies a live client's flow wrote out.", func(f proxy.FlowDirAudit) uint64 { return f.Written })
	flowFamily("jitterlab_proxy_flow_lost_total", "Copies a live client's link lost.", func(f proxy.FlowDirAudit) uint64 { return f.Lost })
	return bw.Flush()
}

type metricWriter struct{ w *bufio.Writer }

func (m metricWriter) family(name, typ, help string) {
	fmt.Fprintf(m.w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// sample writes name{k="v",...} value; labels come in key, value pairs.
func (m metricWriter) sample(name string, v float64, labels ...string) {
	m.w.WriteString(name)
	for i := 0; i+1 < len(labels); i += 2 {
		if i == 0 {
			m.w.WriteByte('{')
		} else {
			m.w.WriteByte(',')
		}
		m.w.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
	}
	if len(labels) > 0 {
		m.w.WriteByte('}')
	}
	m.w.WriteByte(' ')
	m.w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	m.w.WriteByte('\n')
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
