// Command proxybench measures how precisely `lab proxy` adds its delay.
//
// It starts the relay in a child process (itself, with --serve-relay)
// with a fixed added delay on the up link, sends timestamped datagrams at
// each rate both through the relay and straight to a second socket in the
// same run, and reads the arrival time the kernel stamped on each one
// (SO_TIMESTAMPNS). For every datagram through the relay the added-delay
// error is its one-way time minus the configured delay; the direct path's
// one-way time is the same machine's loopback and scheduling cost, for
// comparison. It also reports the relay process's CPU time per rate.
//
//	go run ./cmd/proxybench [--rates 100,1000,10000] [--duration 5s] [--delay 20ms]
//	    [--runs 3] [--relay-prefix "taskset -c 1"] [--release-window 100us] [--bare]
//
// Beside the error it prints the relay's own view (how late it wrote each
// copy after its link's time) and how long the relay waited for a CPU.
// The machine's load average is printed with the figures: on a shared
// machine they are only as good as the CPU the relay got. --bare runs a
// minimal relay (read, write at once) instead: what any relay hop costs.
package main
