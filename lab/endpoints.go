package lab

import (
	"jitterlab/client"
	"jitterlab/server"
	"jitterlab/sim"
)

// NewClient builds the game client of c as a session does: the client's
// settings with what it shares with the server (client.Config.Cadence is
// server.tick), the input script in force and the frame-jitter stream of
// c.Seed. lab game client runs the same client on a real socket.
func (c *Config) NewClient() (*client.Client, error) {
	script, err := c.newScript()
	if err != nil {
		return nil, err
	}
	return client.New(c.clientConfig(), script, sim.NewRand(c.Seed, "client.frames"))
}

// NewServer builds the game server of c as a session does: it moves the
// tank with the client's tuning (the speed the client asks for at login).
func (c *Config) NewServer() (*server.Server, error) { return server.New(c.serverConfig()) }
