// Package metrics measures what the lab shows: RFC 3550 interarrival jitter,
// packet delay variation (RFC 5481), percentiles, and the CSV writer.
package metrics
