// Command lab is jitterlab's command line: the terminal UI by default, and
// subcommands to run, replay, export and sweep sessions in virtual time.
package main
