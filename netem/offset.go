package netem

// Offset is the distribution's offset in units of jitter for the standard
// normal draw z (the AR(1) state): a link's delay is latency + jitter ×
// Offset(z), floored at 0. Fitting a capture (package fit) uses it as the
// quantile function, so the fitted distributions are exactly the lab's.
func (d Dist) Offset(z float64) float64 { return d.offset(z) }
