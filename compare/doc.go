// Package compare puts a real game beside the model on the same link
// (lab compare): a proxy recording with telemetry gives the link the game
// ran on (the settings it started with and every change after) and the
// game's frames; the model runs that link and timeline over seeds, and
// each report-card figure of the game is set against the model's
// [Interval] for one run.
//
// The contract, in the sentences the tests check:
//   - The game's figures and the model's are computed by one code path:
//     [jitterlab/lab.TelemetryMeter] over telemetry frames, the game's as
//     recorded, the model's as its sessions hand them over (Session.OnFrame).
//   - A figure is inside when the game's value lies in the model's
//     interval for one more run, widened to the figure's printed precision.
//   - The verdict is family-wise: with k figures with data, each interval
//     is at 1 − 5 %/k (Bonferroni), so that all hold at once at 95 % and a
//     game that is the model falls outside in at most 5 % of its runs. The
//     game falls inside the model when every figure does.
//   - The largest differences are the figures outside, ranked by how many
//     of the model's spreads they lie away, each named with where to look.
package compare
