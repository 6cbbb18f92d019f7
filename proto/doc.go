// Package proto holds the game's messages as the lab carries them between
// client and server: MoveInput up, PlayerState down, and the login
// handshake that tells the client the server's start tick.
package proto
