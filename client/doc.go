// Package client models the controlled game client: render frames and fixed
// updates in Unity's player-loop order, input sampling, the MoveInput sender,
// the send-interval corrector, live prediction, reconciliation with replay,
// and presentation smoothing with snapping (docs/explanation/model.md, "The game";
// spec 000–004).
// It is a pure step function over virtual time.
package client
