package lab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The model packages are pure step functions over virtual time (docs/explanation/model.md, "Packages"):
// no goroutine, no wall clock, no global math/rand. This reads their
// source and fails on any of those.
func TestModelPackagesArePure(t *testing.T) {
	wallClock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
		"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}
	randOK := map[string]bool{"New": true, "NewPCG": true, "Rand": true, "Source": true, "NewChaCha8": true, "PCG": true, "ChaCha8": true} // constructors and types
	for _, dir := range []string{"../sim", "../netem", "../client", "../server", "../motion", "../proto", "../view", "../scenarios", "../detmath", "."} {
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
			imports := map[string]string{} // local name → path
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				name := filepath.Base(p)
				if p == "math/rand/v2" {
					name = "rand"
				}
				if im.Name != nil {
					name = im.Name.Name
				}
				imports[name] = p
				if p == "math/rand" {
					t.Errorf("%s imports math/rand (v1, global state)", path)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: a goroutine in a model package", fset.Position(x.Pos()))
				case *ast.SelectorExpr:
					id, ok := x.X.(*ast.Ident)
					if !ok {
						return true
					}
					switch imports[id.Name] {
					case "time":
						if wallClock[x.Sel.Name] {
							t.Errorf("%s: time.%s reads the wall clock", fset.Position(x.Pos()), x.Sel.Name)
						}
					case "math/rand/v2":
						if !randOK[x.Sel.Name] {
							t.Errorf("%s: rand.%s uses the global generator", fset.Position(x.Pos()), x.Sel.Name)
						}
					}
				}
				return true
			})
		}
	}
}
