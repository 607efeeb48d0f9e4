// Package docs holds the project's documentation; its test keeps every
// reference in the repository pointing at something the repository has.
package docs

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestRepositoryLinks walks the whole repository and fails, file by file,
// on every Markdown link to a missing file or heading, every mention of a
// specification that lives outside the repository, every docs/….md path
// (or its § section) that does not exist, and every test a Markdown file
// names that no _test.go file defines. Someone who clones the
// repository must be able to follow every reference in it.
func TestRepositoryLinks(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := checkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(problems)) {
		t.Errorf("%s:\n\t%s", file, strings.Join(problems[file], "\n\t"))
	}
}

// TestCheckTreeFindsBrokenReferences proves the check can fail: each case
// is a small tree with one bad reference, which must be reported for the
// file that holds it, and a tree of good references, which must pass.
func TestCheckTreeFindsBrokenReferences(t *testing.T) {
	// Written in two parts so that this file does not mention them itself
	// (this test checks its own file too).
	outsideSpec, outsideDesign, outsideDir := "RULES"+".md", "DESIGN"+".md", "../"+"shared"
	missingDoc, missingSection := "docs/"+"missing.md", "§"+"9.9"
	good := map[string]string{
		"go.mod":               "module example.com/x\n",
		"docs/rules.md":        "# Rules\n\n## §2 Azul\n\n### §2.6 Grey wall (`wall: grey`)\n\n## Terms\n\n## Terms\n",
		"docs/architecture.md": "# Arch\n\nSee [the grey wall](rules.md#26-grey-wall-wall-grey), [terms](rules.md#terms-1),\n[above](#arch), [the code](../main.go), [the site](https://example.com/missing.md)\nand rules.md §2.6.\n\n```\n[not a link](nowhere.md)\n```\n\nInline `[not a link](nowhere.md)` either.\n",
		"main.go":              "package main\n\n// The grey wall: docs/rules.md §2.6 (docs/architecture.md).\nfunc main() {}\n",
		"README.md":            "[rules](docs/rules.md) ![shot](docs/architecture.md)\n\n[ref]: docs/rules.md#2-azul\n",
		"deploy/a.yml":         "# docs/rules.md\n",
		"static/x.js":          "// see docs/rules.md §2\n",
		"other/mydocs.md":      "path/docs/unrelated.md is not a docs path of this repository.\n",
		"main_test.go":         "package main\n\nimport \"testing\"\n\nfunc TestGreyWall(t *testing.T) {}\n",
		"guide/tests.md":       "Run by `TestGreyWall`; not a test name: `Testing`.\n",
	}
	cases := []struct {
		name, file, content, want string
	}{
		{"link to a missing file", "guide/bad.md", "[x](nowhere.md)\n", "nowhere.md"},
		{"link to a missing heading", "guide/bad.md", "[x](../docs/rules.md#no-such-heading)\n", "#no-such-heading"},
		{"link to a missing heading in the same file", "guide/bad.md", "# Bad\n\n[x](#elsewhere)\n", "#elsewhere"},
		{"image of a missing file", "README.md", "![x](docs/shot.png)\n", "docs/shot.png"},
		{"reference definition of a missing file", "README.md", "[x][r]\n\n[r]: guide/gone.md\n", "guide/gone.md"},
		{"link out of the repository", "guide/bad.md", "[x](../../outside.md)\n", "outside the repository"},
		{"outside specification in Go", "main.go", "package main\n\n// See " + outsideSpec + " §2.\n", outsideSpec},
		{"outside design in SQL", "migrations/1.up.sql", "-- " + outsideDesign + " §9\n", outsideDesign},
		{"outside folder in TOML", "i18n/game.toml", "# (" + outsideDir + "/seeds)\n", outsideDir},
		{"outside specification in Markdown", "CHANGELOG.md", "Per " + outsideSpec + ".\n", outsideSpec},
		{"missing docs file in a comment", "main.go", "package main\n\n// See " + missingDoc + ".\n", missingDoc},
		{"missing docs file in a script", "scripts/x.sh", "# " + missingDoc + "\n", missingDoc},
		{"missing section", "main.go", "package main\n\n// docs/rules.md " + missingSection + "\n", missingSection},
		{"missing section in Markdown", "guide/bad.md", "See [rules](../docs/rules.md) " + missingSection + ".\n", missingSection},
		{"missing test named in Markdown", "guide/bad.md", "Run by `TestGreyWallGone`.\n", "TestGreyWallGone"},
		{"missing section in a link's text", "docs/architecture.md", "# Arch\n\nSee [rules.md](rules.md) " + missingSection + ".\n", missingSection},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := maps.Clone(good)
			files[tc.file] = tc.content
			writeTree(t, root, files)
			problems, err := checkTree(root)
			if err != nil {
				t.Fatal(err)
			}
			got := problems[tc.file]
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("no problem with %q reported for %s; got %q", tc.want, tc.file, problems)
			}
			for file := range problems {
				if file != tc.file {
					t.Errorf("problem reported for good file %s: %q", file, problems[file])
				}
			}
		})
	}
	t.Run("good tree", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, good)
		problems, err := checkTree(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) > 0 {
			t.Errorf("problems in a good tree: %q", problems)
		}
	})
}

// TestAnchor: GitHub's heading anchors.
func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"§2.6 The grey wall (`wall: grey`)":                              "26-the-grey-wall-wall-grey",
		"F. The glossary: one term per thing, per language":              "f-the-glossary-one-term-per-thing-per-language",
		"Where the rulebooks and rules.md differ or are unclear":         "where-the-rulebooks-and-rulesmd-differ-or-are-unclear",
		"A [linked](x.md) *word* and <b>bold</b>":                        "a-linked-word-and-bold",
		"Azul – Summer Pavilion Mini":                                    "azul--summer-pavilion-mini",
		"snake_case stays":                                               "snake_case-stays",
		"Übersicht der Züge":                                             "übersicht-der-züge",
		"§3 Summer Pavilion (`summer-pavilion`, `summer-pavilion-mini`)": "3-summer-pavilion-summer-pavilion-summer-pavilion-mini",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// textExtensions are the files whose text is searched for references.
var textExtensions = []string{
	".go", ".md", ".toml", ".sql", ".sh", ".yml", ".yaml", ".js", ".css", ".html", ".tmpl", ".json",
}

// outside are the mentions of documents that are not in the repository:
// the specification, the design notes and the folder of sources they sat
// beside. Written in two parts so that this file does not mention them.
var outside = []string{"RULES" + ".md", "DESIGN" + ".md", "../" + "shared"}

var (
	// inlineLink is [text](target "title") and ![alt](target).
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)`)
	// referenceDefinition is [label]: target.
	referenceDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// docsPath is a docs/….md path that does not continue another path.
	docsPath = regexp.MustCompile(`(?:^|[^\w./-])(docs/[\w-]+(?:/[\w-]+)*(?:\.[\w-]+)*\.md)`)
	// sectionRef is a Markdown file's name (or a link to it) followed by a
	// section: "docs/rules.md §2.6", "[rules.md](rules.md) §3".
	sectionRef = regexp.MustCompile(`(?:^|[^\w./-])([\w./-]*[\w-]\.md)(?:\]\([^)\s]*\)|\))?\s+§(\d+(?:\.\d+)*)`)
	// testFunc is a test, example, benchmark or fuzz function's declaration;
	// testName a Markdown code span naming one.
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark|Fuzz)(?:[A-Z_]\w*)?)\(`)
	testName = regexp.MustCompile("`((?:Test|Example|Benchmark|Fuzz)(?:[A-Z_]\\w*)?)`")
	// headingSection is the § number a heading starts with.
	headingSection = regexp.MustCompile(`^§(\d+(?:\.\d+)*)(?:\s|$)`)
	atxHeading     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:\s+(.*?))?\s*$`)
	htmlAnchor     = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	headingLink    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag        = regexp.MustCompile(`<[^>]+>`)
	scheme         = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// checkTree checks every file below root and returns the problems found,
// by file (slash-separated, relative to root).
func checkTree(root string) (map[string][]string, error) {
	c := &checker{
		root: root, docs: map[string]*markdownDoc{}, problems: map[string][]string{},
		testFuncs: map[string]bool{}, testMentions: map[string][]string{},
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !slices.Contains(textExtensions, filepath.Ext(p)) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return fmt.Errorf("relative path of %s: %w", p, err)
		}
		return c.checkFile(filepath.ToSlash(rel))
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	for _, file := range slices.Sorted(maps.Keys(c.testMentions)) {
		for _, name := range c.testMentions[file] {
			if !c.testFuncs[name] {
				c.report(file, "names the test %s, which no _test.go file defines", name)
			}
		}
	}
	return c.problems, nil
}

type checker struct {
	root     string
	docs     map[string]*markdownDoc // parsed Markdown files, by relative path
	problems map[string][]string
	// testFuncs are the test functions of every _test.go file;
	// testMentions the ones each Markdown file names.
	testFuncs    map[string]bool
	testMentions map[string][]string
}

// markdownDoc is what a Markdown file offers to links: its anchors and
// its § sections. Text is the file without code blocks and code spans.
type markdownDoc struct {
	anchors  map[string]bool
	sections map[string]bool
	lines    []string
}

func (c *checker) report(file, format string, args ...any) {
	c.problems[file] = append(c.problems[file], fmt.Sprintf(format, args...))
}

func (c *checker) checkFile(rel string) error {
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("read %s: %w", rel, err)
	}
	text := string(data)
	for _, name := range outside {
		if n := strings.Count(text, name); n > 0 {
			c.report(rel, "mentions %s (%d×), which is not in the repository", name, n)
		}
	}
	// Most files hold neither a docs/ path nor a § reference: a
	// substring search spares them the expressions, which under the race
	// detector took most of a minute over the whole tree.
	mentionsDocs, mentionsSection := strings.Contains(text, "docs/"), strings.Contains(text, "§")
	for _, m := range docsPathsIn(text, mentionsDocs) {
		if !c.exists(m[1]) {
			c.report(rel, "mentions %s, which does not exist", m[1])
		}
	}
	isMarkdown := path.Ext(rel) == ".md"
	if strings.HasSuffix(rel, "_test.go") {
		for _, m := range testFunc.FindAllStringSubmatch(text, -1) {
			c.testFuncs[m[1]] = true
		}
	}
	if isMarkdown {
		for _, m := range testName.FindAllStringSubmatch(text, -1) {
			c.testMentions[rel] = append(c.testMentions[rel], m[1])
		}
	}
	for _, m := range sectionRefsIn(text, mentionsSection) {
		target := m[1]
		switch {
		case strings.HasPrefix(target, "docs/"):
		case isMarkdown:
			target = path.Join(path.Dir(rel), target)
		default:
			continue // a bare name in code: not a path we can resolve
		}
		if !c.exists(target) {
			continue // reported as a missing file or link already
		}
		doc, err := c.doc(target)
		if err != nil {
			return err
		}
		if !doc.sections[m[2]] {
			c.report(rel, "refers to %s §%s, which has no such section", m[1], m[2])
		}
	}
	if isMarkdown {
		return c.checkLinks(rel)
	}
	return nil
}

// docsPathsIn is docsPath's matches in text. A docs/ path never spans
// lines, so only the lines that mention docs/ are searched: running the
// expression over whole files took most of a minute under the race
// detector.
func docsPathsIn(text string, mentions bool) [][]string {
	if !mentions {
		return nil
	}
	var out [][]string
	for line := range strings.Lines(text) {
		if strings.Contains(line, "docs/") {
			out = append(out, docsPath.FindAllStringSubmatch(line, -1)...)
		}
	}
	return out
}

// sectionRefsIn is sectionRef's matches in text, searched as
// docsPathsIn does: each line with a § together with the line before it
// (the file's name may end one line and its § begin the next), keeping
// the matches whose § is on the line itself, so that none is found twice.
func sectionRefsIn(text string, mentions bool) [][]string {
	if !mentions {
		return nil
	}
	var out [][]string
	prev := ""
	for line := range strings.Lines(text) {
		if strings.Contains(line, "§") {
			pair := prev + line
			for _, m := range sectionRef.FindAllStringSubmatchIndex(pair, -1) {
				if m[4] >= len(prev) { // the § number's start
					out = append(out, []string{pair[m[0]:m[1]], pair[m[2]:m[3]], pair[m[4]:m[5]]})
				}
			}
		}
		prev = line
	}
	return out
}

// checkLinks checks every relative link of a Markdown file.
func (c *checker) checkLinks(rel string) error {
	doc, err := c.doc(rel)
	if err != nil {
		return err
	}
	for _, line := range doc.lines {
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := referenceDefinition.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if err := c.checkLink(rel, target); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *checker) checkLink(rel, target string) error {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return nil // another site: not this test's business
	}
	file, fragment, _ := strings.Cut(target, "#")
	file, err := url.PathUnescape(file)
	if err != nil {
		c.report(rel, "link %s: bad escape", target)
		return nil
	}
	switch {
	case file == "":
		file = rel
	case strings.HasPrefix(file, "/"):
		file = path.Clean(strings.TrimPrefix(file, "/"))
	default:
		file = path.Join(path.Dir(rel), file)
	}
	if file == ".." || strings.HasPrefix(file, "../") {
		c.report(rel, "link %s points outside the repository", target)
		return nil
	}
	if !c.exists(file) {
		c.report(rel, "link %s: %s does not exist", target, file)
		return nil
	}
	if fragment == "" || path.Ext(file) != ".md" {
		return nil // line anchors into code (#L10) are GitHub's own
	}
	doc, err := c.doc(file)
	if err != nil {
		return err
	}
	if !doc.anchors[strings.ToLower(fragment)] {
		c.report(rel, "link %s: %s has no heading #%s", target, file, fragment)
	}
	return nil
}

func (c *checker) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(rel)))
	return err == nil
}

// doc parses a Markdown file once.
func (c *checker) doc(rel string) (*markdownDoc, error) {
	if d, ok := c.docs[rel]; ok {
		return d, nil
	}
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	d := parseMarkdown(string(data))
	c.docs[rel] = d
	return d, nil
}

// parseMarkdown collects a document's heading anchors, as GitHub makes
// them (a repeated heading gets -1, -2, …), its § sections, and its lines
// outside fenced code blocks with code spans removed.
func parseMarkdown(text string) *markdownDoc {
	d := &markdownDoc{anchors: map[string]bool{}, sections: map[string]bool{}}
	seen := map[string]int{}
	addHeading := func(h string) {
		h = strings.TrimSpace(h)
		if m := headingSection.FindStringSubmatch(h); m != nil {
			d.sections[m[1]] = true
		}
		a := anchor(h)
		if n := seen[a]; n > 0 {
			d.anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			d.anchors[a] = true
		}
		seen[a]++
	}
	var fence string
	prev := ""
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" ") == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpening(trimmed); f != "" && len(line)-len(trimmed) < 4 {
			fence, prev = f, ""
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			d.anchors[strings.ToLower(m[1])] = true
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			addHeading(strings.TrimRight(m[2], "# "))
		} else if prev != "" && isSetextUnderline(line) && !strings.HasPrefix(strings.TrimSpace(prev), "|") {
			addHeading(prev)
		}
		d.lines = append(d.lines, withoutCodeSpans(line))
		prev = strings.TrimSpace(line)
	}
	return d
}

// fenceOpening returns the fence (``` or ~~~, at its length) a line opens.
func fenceOpening(line string) string {
	for _, ch := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, ch))
		if n >= 3 {
			return strings.Repeat(ch, n)
		}
	}
	return ""
}

func isSetextUnderline(line string) bool {
	s := strings.TrimSpace(line)
	return s != "" && (strings.Trim(s, "=") == "" || (strings.Trim(s, "-") == "" && len(s) >= 3))
}

// withoutCodeSpans drops `code spans` (of any backtick run length).
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 1
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		run := strings.Repeat("`", n)
		end := closingRun(line[i+n:], n)
		if end < 0 {
			b.WriteString(run)
			i += n
			continue
		}
		i += n + end + n
	}
	return b.String()
}

// closingRun finds a run of exactly n backticks in s.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// anchor is GitHub's anchor of a heading: the rendered text in lower
// case, without punctuation and symbols (hyphens and underscores stay),
// each space a hyphen.
func anchor(heading string) string {
	heading = headingLink.ReplaceAllString(heading, "$1")
	heading = htmlTag.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// moduleRoot is the nearest folder at or above the working directory that
// holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
