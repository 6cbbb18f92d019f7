package lab

import (
	"strings"
	"testing"
)

// Issue 22: a key's step is declared with the key. From the default
// configuration, every key with a step moves down
// 40 times (past its floor if it has one) and back up 40 times, and
// every value it moves to is one the key's own parser
// takes; a key without a step is one whose value is typed (the seed, the
// duration, a start time, the input delay).
func TestEveryStepIsAValueTheKeyTakes(t *testing.T) {
	typed := map[string]bool{"sim.seed": true, "sim.duration": true, "client.start": true, "client.input_delay": true}
	def := DefaultConfig()
	for _, p := range Params() {
		if p.Step == nil {
			if !typed[p.Key] {
				t.Errorf("%s has no step", p.Key)
			}
			continue
		}
		cur := p.Get(&def)
		if strings.Contains(cur, "/") {
			continue // link.* with up and down apart; not so by default
		}
		for i := range 80 {
			dir := -1
			if i >= 40 {
				dir = 1
			}
			next, err := p.Step(p.Key, cur, dir)
			if err != nil {
				if !strings.HasPrefix(err.Error(), p.Key+" ") {
					t.Errorf("%s: step from %q: %v (the error must start with the key)", p.Key, cur, err)
				}
				break
			}
			if err := CheckAssignment(p.Key, next); err != nil {
				t.Errorf("%s: step %+d from %q gives %q, which the key refuses: %v", p.Key, dir, cur, next, err)
				break
			}
			cur = next
		}
	}
}
