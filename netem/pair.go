package netem

import (
	"slices"
	"strings"

	"jitterlab/param"
)

// Pair is a link's two directions: Up, from the client to the server, and
// Down, back.
type Pair struct{ Up, Down Params }

// Validate checks each direction ([Params.Validate]), Up first; the error
// names the key ("up.loss").
func (p *Pair) Validate() error {
	if err := p.Up.Validate("up"); err != nil {
		return err
	}
	return p.Down.Validate("down")
}

// Set parses v for k into p, then checks the pair (Validate). On an error
// p is unchanged.
func (p *Pair) Set(k PairKey, v string) error {
	next := *p
	if err := k.Set(&next, v); err != nil {
		return err
	}
	if err := next.Validate(); err != nil {
		return err
	}
	*p = next
	return nil
}

// A PairKey is a setting of a Pair under its full key: "up.NAME" and
// "down.NAME" name one direction's, "link.NAME" both directions' (their
// value reads "UP/DOWN" where they differ).
type PairKey struct {
	Name, Help string
	Get        func(*Pair) string
	// Set parses v into the pair, without Validate; on an error the pair
	// may be changed (Pair.Set is all or nothing).
	Set  func(p *Pair, v string) error
	Step param.Step
}

// Directions are the prefixes of a Pair's keys, in PairKeys' order.
var Directions = []string{"up", "down", "link"}

// PairKeys lists every Key under each of Directions: up.* in Keys' order,
// then down.*, then link.*.
func PairKeys() []PairKey { return pairKeys }

// LookupPairKey finds a Pair's key by its full name ("up.latency").
func LookupPairKey(key string) (PairKey, bool) {
	i := slices.IndexFunc(pairKeys, func(k PairKey) bool { return k.Name == key })
	if i < 0 {
		return PairKey{}, false
	}
	return pairKeys[i], true
}

// IsPairKey says whether key is under one of Directions ("up.", "down.",
// "link."), whether or not a Key has its name.
func IsPairKey(key string) bool {
	dir, _, ok := strings.Cut(key, ".")
	return ok && slices.Contains(Directions, dir)
}

var pairKeys = buildPairKeys()

func buildPairKeys() []PairKey {
	var out []PairKey
	for _, dir := range Directions {
		sides := func(p *Pair) []*Params { return []*Params{&p.Up, &p.Down} }
		help := " (both directions)"
		switch dir {
		case "up":
			sides, help = func(p *Pair) []*Params { return []*Params{&p.Up} }, ""
		case "down":
			sides, help = func(p *Pair) []*Params { return []*Params{&p.Down} }, ""
		}
		for _, k := range keys {
			name := dir + "." + k.Name
			out = append(out, PairKey{Name: name, Help: k.Help + help, Step: k.Step,
				Get: func(p *Pair) string {
					vs := make([]string, 0, 2)
					for _, side := range sides(p) {
						if v := k.Get(side); len(vs) == 0 || v != vs[0] {
							vs = append(vs, v)
						}
					}
					return strings.Join(vs, "/")
				},
				Set: func(p *Pair, v string) error {
					for _, side := range sides(p) {
						if err := k.Set(side, name, v); err != nil {
							return err
						}
					}
					return nil
				}})
		}
	}
	return out
}
