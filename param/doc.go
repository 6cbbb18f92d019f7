// Package param parses parameter values as people write them: durations
// ("80ms"), fractions ("2%" or "0.02"), rates in tc(8)'s units ("1.5mbit",
// "500kbit"; "2mbps" is two megaBYTES per second, as in tc),
// clock drift ("+40ppm"), booleans and choices from a fixed set. Every parse
// error is an [*Error] naming the key, the value and what is allowed.
package param
