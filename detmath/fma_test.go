package detmath

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
// functions whose symbols match the regular expression syms (only those are
// disassembled).
func scanFMA(t *testing.T, goarch, goamd64, pkg, syms string) []fmaSite {
	t.Helper()
	sites, _ := disassembleFMA(t, buildFor(t, goarch, goamd64, pkg), syms)
	return sites
}

// buildFor builds pkg for the target into a temporary file and returns its path.
func buildFor(t *testing.T, goarch, goamd64, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "GOAMD64="+goamd64, "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=%s GOAMD64=%s go build %s: %v\n%s", goarch, goamd64, pkg, err, out)
	}
	return bin
}

// disassembleFMA returns the FMA instructions of bin's functions whose
// symbols match syms, and the number of those functions.
func disassembleFMA(t *testing.T, bin, syms string) (sites []fmaSite, funcs int) {
	t.Helper()
	dis, err := exec.Command("go", "tool", "objdump", "-s", syms, bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	var symbol string
	sc := bufio.NewScanner(bytes.NewReader(dis))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if rest, ok := strings.CutPrefix(l, "TEXT "); ok {
			symbol, _, _ = strings.Cut(rest, " ")
			funcs++
			continue
		}
		if fmaInstruction.MatchString(l) {
			sites = append(sites, fmaSite{symbol, strings.Fields(l)[0]})
		}
	}
	return sites, funcs
}

// labSymbols are the functions the scan checks: the lab's, except the
// terminal UI's (jitterlab/tui and the packages under it).
const labSymbols = `^jitterlab/([^t]|t[^u]|tu[^i]|tui[^./])`

// scanCache remembers the binaries a scan passed, by build ID: the go
// command gives a binary built from the same inputs the same ID, so a
// passed scan of unchanged code is not repeated. The key also covers the
// scan itself (this file) and the explicit math.FMA lines allowed.
type scanCache struct{ dir, salt string }

func newScanCache(t *testing.T, explicit map[string]bool) scanCache {
	t.Helper()
	self, err := os.ReadFile("fma_test.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := slices.Sorted(maps.Keys(explicit))
	h := sha256.New()
	h.Write(self)
	h.Write([]byte(strings.Join(lines, "\n")))
	dir := ""
	if base, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(base, "jitterlab", "fma-scan")
	}
	return scanCache{dir: dir, salt: hex.EncodeToString(h.Sum(nil))}
}

// key is the cache file of bin, "" when its build ID cannot be read.
func (c scanCache) key(t *testing.T, bin string) string {
	t.Helper()
	id, err := exec.Command("go", "tool", "buildid", bin).Output()
	if err != nil || c.dir == "" {
		t.Logf("no scan cache: build ID %v, cache dir %q", err, c.dir)
		return ""
	}
	h := sha256.Sum256([]byte(c.salt + "\n" + strings.TrimSpace(string(id))))
	return filepath.Join(c.dir, hex.EncodeToString(h[:]))
}

func (c scanCache) passed(key string) bool {
	if key == "" {
		return false
	}
	_, err := os.Stat(key)
	return err == nil
}

func (c scanCache) remember(key string) {
	if key == "" {
		return
	}
	if os.MkdirAll(c.dir, 0o755) == nil {
		os.WriteFile(key, []byte("no unexpected FMA\n"), 0o644) // a cache: losing it only repeats a scan
	}
}

// Every float expression of the lab is written so that no compiler can fuse
// it (see the package documentation): built for arm64 and for amd64 v3, the
// lab's code contains no FMA instruction except this package's explicit
// math.FMA calls. The terminal UI (jitterlab/tui/...) is exempt: it only draws
// and steps the values a user types, which the lab records as text.
func TestNoFusedMultiplyAdd(t *testing.T) {
	explicit := explicitFMALines(t)
	cache := newScanCache(t, explicit)
	for _, tg := range fusingTargets {
		// The scan finds what it looks for.
		if got := scanFMA(t, tg.goarch, tg.goamd64, "./testdata/fused", `^main\.fused$`); len(got) == 0 {
			t.Fatalf("%s: the scan found no FMA in x*y + z; it cannot be trusted", tg.name)
		}
		bin := buildFor(t, tg.goarch, tg.goamd64, "jitterlab/cmd/lab")
		key := cache.key(t, bin)
		if cache.passed(key) {
			t.Logf("%s: this build (%s) passed before", tg.name, filepath.Base(key))
			continue
		}
		sites, funcs := disassembleFMA(t, bin, labSymbols)
		if funcs < 1000 {
			t.Fatalf("%s: only %d of the lab's functions disassembled; the symbol filter %s is wrong", tg.name, funcs, labSymbols)
		}
		failed := false
		for _, s := range sites {
			if !explicit[s.line] {
				failed = true
				t.Errorf("%s: fused multiply-add at %s in %s: wrap the product in float64(...)", tg.name, s.line, s.symbol)
			}
		}
		if !failed {
			cache.remember(key)
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
