// Package plural writes a count with its noun: "1 scenario", "3
// scenarios". English plurals with an s only: the lab's nouns (frame,
// tick, datagram, client, scenario, assertion) take one.
package plural
