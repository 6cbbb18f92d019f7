package preset

import (
	"fmt"
	"strings"

	"jitterlab/lab"
)

// Keys are the scenarios bound to keys 1–9.
var Keys = []string{"perfect", "lan", "home-fiber", "home-broadband", "home-congested", "mobile-4g", "mobile-3g", "unreal-bad", "jitter-fix"}

// Changes are the assignments that turn cur into preset name as a whole
// link: the link starts from the perfect link's settings, then the
// preset's parameters apply (its timeline does not). Only the keys whose
// value changes are returned, in registry order.
func Changes(cur lab.Config, name string) (changes [][2]string, description string, err error) {
	sc, err := lab.LoadScenario(name)
	if err != nil {
		return nil, "", err
	}
	next := cur
	def := lab.DefaultConfig()
	next.Up, next.Down = def.Up, def.Down
	for _, p := range sc.Params {
		if err := lab.Set(&next, p.Key, p.Value); err != nil {
			return nil, "", err
		}
	}
	if err := next.Validate(); err != nil {
		return nil, "", fmt.Errorf("preset %s: %w", name, err)
	}
	for _, p := range lab.Params() {
		if !p.Live || strings.HasPrefix(p.Key, "link.") {
			continue
		}
		if v := p.Get(&next); v != p.Get(&cur) {
			changes = append(changes, [2]string{p.Key, v})
		}
	}
	return changes, sc.Description, nil
}
