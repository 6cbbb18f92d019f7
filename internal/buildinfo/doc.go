// Package buildinfo reads what the build recorded of the program (the
// module, its version, the VCS revision) once for every output that names
// the build: 'lab --version' ([Info.WriteText]) and the version a run's
// JSON, a batch and a baseline carry ([Info.Short]).
package buildinfo
