package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"jitterlab/internal/testtool"
)

// repoFiles returns the repository's Go, Markdown and TOML files by path
// relative to the module root.
func repoFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".go" || ext == ".md" || ext == ".toml") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Issue 8.23: the project stands on its own. Its documents and comments cite
// docs/explanation/model.md, never a design page or spec folder outside the repository,
// and call the user's specs "spec 000–004" ("seed" is the random seed).
func TestProjectStandsOnItsOwn(t *testing.T) {
	outside := regexp.MustCompile(`DESIGN\.md|DESIGN §|seeds/|(?i:\bseeds? 00[0-4])`)
	files := repoFiles(t)
	for path, text := range files {
		if path == "cmd/lab/docs_test.go" {
			continue
		}
		for i, line := range strings.Split(text, "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which is not in the repository: cite docs/explanation/model.md (specs are \"spec 000–004\")", path, i+1, m)
			}
		}
	}
	if _, ok := files["docs/explanation/model.md"]; !ok {
		t.Fatal("docs/explanation/model.md, the model contract, is missing")
	}
	if !strings.Contains(files["README.md"], "docs/explanation/model.md") {
		t.Error("README.md does not point to docs/explanation/model.md")
	}
}

// Every test the model's pages (docs/explanation/model.md and specs.md)
// name as covering a spec exists.
func TestModelDocNamesRealTests(t *testing.T) {
	files := repoFiles(t)
	model := files["docs/explanation/model.md"] + files["docs/explanation/specs.md"]
	cited := regexp.MustCompile("`(?:([a-z]+)\\.)?(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(model, -1)
	if len(cited) < 10 {
		t.Fatalf("the model's pages name %d tests; the spec summaries name more", len(cited))
	}
	for _, c := range cited {
		pkg, name := c[1], c[2]
		found := false
		for path, text := range files {
			if strings.HasSuffix(path, "_test.go") && (pkg == "" || strings.HasPrefix(path, pkg+"/")) &&
				strings.Contains(text, "func "+name+"(") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the model's pages name %s, which no test file of package %q defines", c[0], pkg)
		}
	}
}

// Issue 8.24: an MIT licence, and the lab's own outputs (recordings, its CSV
// exports, the README examples' files, the built binary) stay out of
// commits while the shipped example recording and the goldens stay in.
func TestLicenseAndIgnoredOutputs(t *testing.T) {
	lic, err := os.ReadFile(filepath.Join("..", "..", "LICENSE"))
	if err != nil || !strings.HasPrefix(string(lic), "MIT License\n\nCopyright (c) 2026 the jitterlab authors\n") {
		t.Errorf("LICENSE is not the MIT licence of the jitterlab authors (%v)", err)
	}
	testtool.Need(t, "git", "git")
	ignored := []string{"spike.jlrec", "lab/x.jlrec", "jitterlab-jitter-fix-seed1-000012.500.csv", "run.csv", "jitter.png", "jitterlab"}
	kept := []string{"recordings/examples/jitter-fix.jlrec", "lab/session.go", "docs/latency-spike.png",
		"cmd/lab/testdata/golden/tails-10s.csv", "scenarios/builtin/perfect.toml"}
	cmd := exec.Command("git", append([]string{"check-ignore", "--no-index"}, append(ignored, kept...)...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) { // 1: none ignored
		t.Fatalf("git check-ignore: %v", err)
	}
	got := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		got[l] = true
	}
	for _, p := range ignored {
		if !got[p] {
			t.Errorf(".gitignore does not ignore %s", p)
		}
	}
	for _, p := range kept {
		if got[p] {
			t.Errorf(".gitignore ignores %s, which the repository ships", p)
		}
	}
}
