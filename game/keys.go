package game

import (
	"fmt"
	"strings"

	"jitterlab/lab"
)

// Configure is the game's settings: lab.DefaultConfig with each key=value
// of sets applied in order through the lab's registry. It takes the keys
// of the game itself (client.*, server.*, input.*) and sim.seed (the
// input script's and the frame jitter's draws); it refuses, naming the
// key, those of the link (the link is the real network, or lab proxy's),
// of the remote viewer, of the session's length and of the client's
// start phase (a real client starts when it is started).
func Configure(sets []string) (lab.Config, error) {
	cfg := lab.DefaultConfig()
	for _, a := range sets {
		k, v, err := lab.ParseAssignment(a)
		if err != nil {
			return cfg, fmt.Errorf("--set: %w", err)
		}
		if _, known := lab.Lookup(k); known {
			if why := notAGameKey(k); why != "" {
				return cfg, fmt.Errorf("--set %s: %s", a, why)
			}
		}
		if err := lab.Set(&cfg, k, v); err != nil {
			return cfg, fmt.Errorf("--set %s: %w", a, err)
		}
	}
	return cfg, nil
}

// Takes reports whether lab game takes registry key k (see [Configure]).
func Takes(k string) bool { return notAGameKey(k) == "" }

// notAGameKey says why a registry key does not apply to lab game, or "".
func notAGameKey(k string) string {
	switch {
	case k == "sim.seed":
		return ""
	case k == "sim.duration":
		return "sim.duration does not apply: the game runs in wall time; give the client --duration, e.g. --duration 10s"
	case k == "client.start":
		return "client.start does not apply: the real client starts when you start it"
	case strings.HasPrefix(k, "client."), strings.HasPrefix(k, "server."), strings.HasPrefix(k, "input."):
		return ""
	}
	return fmt.Sprintf("%s is not a setting of the game: lab game takes client.*, server.*, input.* and sim.seed; put lab proxy --set between client and server for the link", k)
}
