package lab

// choiceNames holds the allowed values of every variant key (registered by
// choice, as the registry is built).
var choiceNames = map[string][]string{}

// Variant is a registry key that picks one of several implementations of
// the netcode (client.sender, server.inputs, ...), with its choices.
type Variant struct {
	Key     string
	Choices []string
}

// Variants lists the registry's variant keys in registry order: every key
// built with a fixed list of implementations, so a new variant joins this
// list (and lab diagnose) by being registered.
func Variants() []Variant {
	var out []Variant
	for _, p := range registry {
		if names, ok := choiceNames[p.Key]; ok {
			out = append(out, Variant{p.Key, names})
		}
	}
	return out
}
