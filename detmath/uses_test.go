package detmath

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exactMath are the math functions whose results are exact or correctly
// rounded by IEEE 754 (or are bit manipulations), so they are the same on
// every machine. Everything else in math may be compiled with fused
// multiply-adds, or be assembly that differs between CPUs.
var exactMath = map[string]bool{
	"Abs": true, "Sqrt": true, "Floor": true, "Ceil": true, "Round": true, "RoundToEven": true, "Trunc": true,
	"Mod": true, "Modf": true, "Frexp": true, "Ldexp": true, "Copysign": true, "Signbit": true, "Dim": true,
	"Max": true, "Min": true, "FMA": true, "Nextafter": true, "Inf": true, "IsInf": true, "IsNaN": true, "NaN": true,
	"Float64bits": true, "Float64frombits": true, "Float32bits": true, "Float32frombits": true,
}

// The model calls this package, not math or math/rand/v2, for everything
// that is not exact: TestNoFusedMultiplyAdd scans only the lab's own code, so
// a call to math.Sin or Rand.NormFloat64 would slip past it.
func TestModelUsesDetmath(t *testing.T) {
	for _, dir := range []string{"../sim", "../netem", "../client", "../server", "../motion", "../scenarios", "../lab", "../view", "../metrics", "../recordings", "../stats", "../diagnose", "../report", "../batch", "../fit", "../trace"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			mathName := ""
			for _, im := range f.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == "math" {
					mathName = "math"
					if im.Name != nil {
						mathName = im.Name.Name
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == mathName && mathName != "" && !exactMath[sel.Sel.Name] {
					t.Errorf("%s: math.%s may round differently on other machines: use detmath (or add it there)", fset.Position(call.Pos()), sel.Sel.Name)
				}
				if sel.Sel.Name == "NormFloat64" || sel.Sel.Name == "ExpFloat64" {
					if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "detmath" {
						t.Errorf("%s: %s from math/rand/v2 is compiled with fused multiply-adds on arm64: use detmath.NormFloat64", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
