// Package clip bounds text that came from outside (a request's value, an
// error quoting it) before it is shown or logged: [String] keeps the
// first bytes and says how many were left out.
package clip
