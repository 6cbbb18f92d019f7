package control

import (
	"fmt"
	"slices"
	"time"

	"jitterlab/netem"
)

// Registry is the keys the proxy takes and what it needs to know of the
// others. netem declares the link's settings ([netem.PairKeys]); the
// caller (proxy/live, from the lab's registry) adds the link keys netem
// does not have — a trace, which opens a file — and the error for a key
// that is no link's.
type Registry struct {
	// Extra are link keys (up.*, down.*, link.*) besides netem's.
	Extra []netem.PairKey
	// Unknown is nil for a key the caller's registry has, and for any
	// other the error to give (with suggestions).
	Unknown func(key string) error
	// MaxAt is how far from now POST /timeline may schedule a change (the
	// longest run; 0 takes only changes due at once).
	MaxAt time.Duration
}

// IsLinkKey says whether key is a link setting's by its name (up.*,
// down.* or link.*), whether or not one has that name.
func IsLinkKey(key string) bool { return netem.IsPairKey(key) }

// CheckLinkKey refuses a key that is not a link setting: the proxy relays
// real traffic, so only up.*, down.* and link.* mean anything to it.
func (r Registry) CheckLinkKey(key string) error {
	if IsLinkKey(key) {
		return nil
	}
	if err := r.unknown(key); err != nil {
		return err
	}
	return fmt.Errorf("%s is not a link setting: the proxy takes up.*, down.* and link.* keys", key)
}

func (r Registry) unknown(key string) error {
	if r.Unknown == nil {
		return fmt.Errorf("unknown parameter %q", key)
	}
	return r.Unknown(key)
}

// Keys lists the link keys: netem's, then Extra.
func (r Registry) Keys() []netem.PairKey {
	return slices.Concat(netem.PairKeys(), r.Extra)
}

// Lookup finds a link key, with the error for one it does not have.
func (r Registry) Lookup(key string) (netem.PairKey, error) {
	if err := r.CheckLinkKey(key); err != nil {
		return netem.PairKey{}, err
	}
	if k, ok := netem.LookupPairKey(key); ok {
		return k, nil
	}
	for _, k := range r.Extra {
		if k.Name == key {
			return k, nil
		}
	}
	if err := r.unknown(key); err != nil {
		return netem.PairKey{}, err
	}
	return netem.PairKey{}, fmt.Errorf("unknown parameter %q", key) // a key the caller has and did not hand over
}

// Set parses value for key into links and checks them as a whole; on an
// error links are unchanged.
func (r Registry) Set(links *netem.Pair, key, value string) error {
	k, err := r.Lookup(key)
	if err != nil {
		return err
	}
	return links.Set(k, value)
}

// Check says whether key is a link key with a value its parser takes,
// without the checks of the links as a whole (as scenario files are
// checked).
func (r Registry) Check(key, value string) error {
	k, err := r.Lookup(key)
	if err != nil {
		return err
	}
	var scratch netem.Pair
	return k.Set(&scratch, value)
}

// Get is key's value in links ("": no such key).
func (r Registry) Get(links *netem.Pair, key string) string {
	k, err := r.Lookup(key)
	if err != nil {
		return ""
	}
	return k.Get(links)
}
