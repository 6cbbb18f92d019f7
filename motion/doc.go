// Package motion holds the tank kinematics shared by client and server: a
// [Pose] (x, y in metres, rotation in degrees) advanced by [Step] with rotation
// first, so the new heading moves the tank in the same step (docs/explanation/model.md,
// "Kinematics").
package motion
