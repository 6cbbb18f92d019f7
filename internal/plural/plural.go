package plural

import "strconv"

// Of is n and the noun, with an s unless n is 1.
func Of[N ~int | ~uint64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatUint(uint64(n), 10) + " " + noun + "s"
}
