package widget

import (
	"fmt"
	"math"
)

// Num formats v, or "–" when it is not measured (NaN): a screen never
// shows "NaN".
func Num(format string, v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}
