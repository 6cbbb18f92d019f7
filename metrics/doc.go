// Package metrics measures what the lab shows: RFC 3550 interarrival jitter,
// packet delay variation (RFC 5481), percentiles, the CSV writer and the
// PNG plots (X11's fixed font, value ticks on a 1-2-5 step).
package metrics
