package docs

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureImports: the import graph docs/architecture.md §6 shows
// is the project's, as go/build reads it from the source (each package's
// direct imports of other project packages, test files left out): a
// package added, removed or importing differently fails here until the
// page says so. On failure it prints the block the page should have.
func TestArchitectureImports(t *testing.T) {
	want := projectImports(t, "..")
	got := documentedImports(t, filepath.Join("..", "docs", "architecture.md"))
	var diffs []string
	for _, p := range sortedKeys(want, got) {
		w, inW := want[p]
		g, inG := got[p]
		switch {
		case !inG:
			diffs = append(diffs, p+": a package the page does not list")
		case !inW:
			diffs = append(diffs, p+": listed, but there is no such package")
		case !slices.Equal(w, g):
			diffs = append(diffs, p+": imports "+strings.Join(w, ", ")+"; the page says "+strings.Join(g, ", "))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("docs/architecture.md §6 disagrees with the code:\n\t%s\nthe block should read:\n%s",
			strings.Join(diffs, "\n\t"), renderImports(want))
	}
}

// projectImports is every package of the module at root (by path within
// the module) with the project packages it imports, sorted.
func projectImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	module := modulePath(t, filepath.Join(root, "go.mod"))
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		pkg, err := build.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		deps := []string{}
		for _, imp := range pkg.Imports {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok {
				deps = append(deps, dep)
			}
		}
		slices.Sort(deps)
		out[filepath.ToSlash(rel)] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func modulePath(t *testing.T, gomod string) string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatalf("%s names no module", gomod)
	return ""
}

// documentedImports reads the first fenced block of the page's section 6:
// one line a package, "pkg → dep, dep" or "pkg → (none)", a dep of the
// form "a/{b,c}" standing for a/b and a/c.
func documentedImports(t *testing.T, page string) map[string][]string {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section, inBlock, done := false, false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan() && !done; n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.HasPrefix(line, "## 6.")
		case section && strings.HasPrefix(line, "```"):
			done, inBlock = inBlock, !inBlock
		case inBlock:
			pkg, deps, ok := strings.Cut(line, " → ")
			pkg = strings.TrimSpace(pkg)
			if !ok || pkg == "" {
				t.Fatalf("%s:%d: %q is not \"package → imports\"", page, n, line)
			}
			if _, dup := out[pkg]; dup {
				t.Fatalf("%s:%d: %s listed twice", page, n, pkg)
			}
			out[pkg] = expand(strings.TrimSpace(deps))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no import block in section 6", page)
	}
	return out
}

// expand turns "a, b/{c,d}" into [a b/c b/d], sorted; "(none)" into none.
func expand(deps string) []string {
	out := []string{}
	if deps == "(none)" {
		return out
	}
	for _, d := range strings.Split(deps, ", ") {
		prefix, rest, ok := strings.Cut(d, "{")
		if !ok {
			out = append(out, d)
			continue
		}
		for _, leaf := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
			out = append(out, prefix+leaf)
		}
	}
	slices.Sort(out)
	return out
}

// renderImports is the block for graph, the form documentedImports reads:
// the packages aligned, imports of one parent folded into braces.
func renderImports(graph map[string][]string) string {
	pkgs := sortedKeys(graph, nil)
	width := 0
	for _, p := range pkgs {
		width = max(width, len(p))
	}
	var b strings.Builder
	b.WriteString("```\n")
	for _, p := range pkgs {
		deps := fold(graph[p])
		if len(deps) == 0 {
			deps = []string{"(none)"}
		}
		b.WriteString(p + strings.Repeat(" ", width-len(p)) + " → " + strings.Join(deps, ", ") + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// fold writes sorted deps of one parent folder as "parent/{a,b}".
func fold(deps []string) []string {
	var out []string
	for i := 0; i < len(deps); {
		parent, _ := splitParent(deps[i])
		j := i + 1
		for parent != "" && j < len(deps) {
			if p, _ := splitParent(deps[j]); p != parent {
				break
			}
			j++
		}
		if j-i == 1 {
			out = append(out, deps[i])
		} else {
			leaves := make([]string, 0, j-i)
			for _, d := range deps[i:j] {
				_, leaf := splitParent(d)
				leaves = append(leaves, leaf)
			}
			out = append(out, parent+"/{"+strings.Join(leaves, ",")+"}")
		}
		i = j
	}
	return out
}

func splitParent(p string) (parent, leaf string) {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// sortedKeys is the keys of a and b, sorted, once each.
func sortedKeys(a, b map[string][]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
