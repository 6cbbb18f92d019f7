// Package observer models what another player sees of our tank: snapshot
// interpolation of the server's PlayerStates, rendered an interpolation
// delay behind the estimated server time (Valve's cl_interp, 100 ms by
// default), extrapolating briefly when the next snapshot is late and
// freezing after that. [Viewer] is a pure step function over the times it
// is given, like the client and the server. Its settings are the registry's
// view.* keys: the remote player's view of our tank.
package observer
