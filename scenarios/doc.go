// Package scenarios holds the built-in link presets with their sources, the
// lab scenarios that exercise the model's mechanisms, TOML scenario files,
// timelines of parameter changes and input scripts.
package scenarios
