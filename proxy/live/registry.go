package live

import (
	"net/netip"

	"jitterlab/lab"
	"jitterlab/netem"
	proxyctl "jitterlab/proxy/control"
)

// registry is the keys lab proxy takes (proxy/control's Registry): netem's
// link keys, the lab's link keys netem does not declare (a trace, which
// opens a capture through lab.Traces), the lab's error for a key it does
// not know (with suggestions) and its longest run.
var registry = labRegistry()

func labRegistry() proxyctl.Registry {
	reg := proxyctl.Registry{MaxAt: lab.MaxDuration,
		Unknown: func(key string) error {
			if _, ok := lab.Lookup(key); ok {
				return nil
			}
			return lab.CheckAssignment(key, "") // the registry's unknown-key error
		}}
	for _, p := range lab.Params() {
		if _, ok := netem.LookupPairKey(p.Key); ok || !proxyctl.IsLinkKey(p.Key) {
			continue
		}
		reg.Extra = append(reg.Extra, netem.PairKey{Name: p.Key, Help: p.Help, Step: p.Step,
			Get: func(links *netem.Pair) string {
				cfg := lab.Config{Up: links.Up, Down: links.Down}
				return p.Get(&cfg)
			},
			Set: func(links *netem.Pair, v string) error {
				cfg := lab.Config{Up: links.Up, Down: links.Down}
				err := p.Set(&cfg, v)
				links.Up, links.Down = cfg.Up, cfg.Down
				return err
			}})
	}
	return reg
}

// conditions are a run's link settings (proxy/control's Conditions) in
// the lab configuration it started from, whose other settings (the seed,
// the scenario's) do not change during a run.
type conditions struct {
	*proxyctl.Conditions
	base lab.Config
}

func newConditions(base lab.Config, relay proxyctl.Relay, onChange func(ch proxyctl.Timed, err error)) *conditions {
	return &conditions{proxyctl.New(registry, netem.Pair{Up: base.Up, Down: base.Down}, relay, onChange), base}
}

// Config is the configuration the client at flow gets (the defaults for
// an invalid flow) and the assignments it has of its own.
func (c *conditions) Config(flow netip.AddrPort) (lab.Config, []proxyctl.Assignment) {
	links, own := c.Conditions.Config(flow)
	cfg := c.base
	cfg.Up, cfg.Down = links.Up, links.Down
	return cfg, own
}
