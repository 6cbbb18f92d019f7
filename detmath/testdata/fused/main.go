// Command fused holds one product-plus-sum that arm64 and amd64 v3 compile
// into a fused multiply-add: TestNoFusedMultiplyAdd proves on it that its
// disassembly scan finds such instructions.
package main

import (
	"fmt"
	"os"
)

//go:noinline
func fused(x, y, z float64) float64 { return x*y + z }

func main() { fmt.Println(fused(float64(len(os.Args)), 0.1, 0.2)) }
