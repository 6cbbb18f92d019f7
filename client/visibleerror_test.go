package client

import (
	"testing"

	"jitterlab/motion"
)

// The visible error is the distance of the positions, whatever the
// headings: drawn at (1, 2), predicted at (4, 6), 5 m (a 3-4-5 triangle).
func TestVisibleErrorIsThePositionsDistance(t *testing.T) {
	for _, c := range []struct {
		name               string
		visible, predicted motion.Pose
		want               float64
	}{
		{"3-4-5", motion.Pose{X: 1, Y: 2, Rot: 10}, motion.Pose{X: 4, Y: 6, Rot: 100}, 5},
		{"same place, other heading", motion.Pose{X: -7, Y: 3, Rot: 0}, motion.Pose{X: -7, Y: 3, Rot: 90}, 0},
		{"either way round", motion.Pose{X: 4, Y: 6}, motion.Pose{X: 1, Y: 2}, 5},
	} {
		if got := VisibleError(c.visible, c.predicted); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
