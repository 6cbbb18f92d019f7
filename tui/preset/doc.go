// Package preset is the link presets both screens bind to the keys 1–9
// ([Keys]) and what applying one as a whole link changes ([Changes]).
package preset
