package detmath

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The targets whose compilers fuse x*y + z into one instruction.
var fusingTargets = []struct{ name, goarch, goamd64 string }{
	{"arm64", "arm64", ""},
	{"amd64 v3", "amd64", "v3"},
}

// fmaInstruction matches a fused multiply-add in `go tool objdump` output:
// arm64 FMADD/FMSUB/FNMADD/FNMSUB by name; amd64 VFMADD…/VFMSUB…/VFNM… by
// their bytes (objdump does not decode them): a three-byte VEX prefix c4 in
// opcode map 0F38 (low nibble of the second byte 2) with an opcode in
// 96–9F, A6–AF or B6–BF.
var fmaInstruction = regexp.MustCompile(`\s(F(N)?M(ADD|SUB)[DS])\s|\s(c4[0-9a-f]2[0-9a-f]{2}(9[6-9a-f]|a[6-9a-f]|b[6-9a-f])[0-9a-f]*)\s`)

type fmaSite struct{ symbol, line string }

// scanFMA builds pkg for the target and returns the FMA instructions in the
// functions whose symbols match keep.
func scanFMA(t *testing.T, goarch, goamd64, pkg string, keep func(symbol string) bool) []fmaSite {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "GOAMD64="+goamd64, "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=%s GOAMD64=%s go build %s: %v\n%s", goarch, goamd64, pkg, err, out)
	}
	dis, err := exec.Command("go", "tool", "objdump", bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	var sites []fmaSite
	var symbol string
	sc := bufio.NewScanner(bytes.NewReader(dis))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if rest, ok := strings.CutPrefix(l, "TEXT "); ok {
			symbol, _, _ = strings.Cut(rest, " ")
			continue
		}
		if keep(symbol) && fmaInstruction.MatchString(l) {
			sites = append(sites, fmaSite{symbol, strings.Fields(l)[0]})
		}
	}
	return sites
}

// Every float expression of the lab is written so that no compiler can fuse
// it (see the package documentation): built for arm64 and for amd64 v3, the
// lab's code contains no FMA instruction except this package's explicit
// math.FMA calls. The terminal UI (jitterlab/tui) is exempt: it only draws
// and steps the values a user types, which the lab records as text.
func TestNoFusedMultiplyAdd(t *testing.T) {
	explicit := explicitFMALines(t)
	for _, tg := range fusingTargets {
		// The scan finds what it looks for.
		if got := scanFMA(t, tg.goarch, tg.goamd64, "./testdata/fused", func(s string) bool { return s == "main.fused(SB)" }); len(got) == 0 {
			t.Fatalf("%s: the scan found no FMA in x*y + z; it cannot be trusted", tg.name)
		}
		for _, s := range scanFMA(t, tg.goarch, tg.goamd64, "jitterlab/cmd/lab", func(s string) bool {
			return strings.HasPrefix(s, "jitterlab/") && !strings.HasPrefix(s, "jitterlab/tui.")
		}) {
			if !explicit[s.line] {
				t.Errorf("%s: fused multiply-add at %s in %s: wrap the product in float64(...)", tg.name, s.line, s.symbol)
			}
		}
	}
}

// explicitFMALines lists this package's "file.go:line" positions that call
// math.FMA on purpose.
func explicitFMALines(t *testing.T) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	lines := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "math.FMA(") {
				lines[f+":"+strconv.Itoa(i+1)] = true
			}
		}
	}
	return lines
}
