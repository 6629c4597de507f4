//go:build cgo

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docCommand is one rocksleak command line found in a fenced code block of
// the docs: where it is, its arguments after the command name (subcommand
// first), and whether it is a synopsis ("[--out DIR]", "NAME|FILE", a
// description column) rather than a line to paste.
type docCommand struct {
	where    string
	args     []string
	synopsis bool
}

// docFiles are the Markdown files whose command blocks must parse: README.md
// and docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// docCommands returns every rocksleak command line in the fenced code blocks
// of the Markdown file path. A line continued with a trailing backslash is
// joined to the next. In a block with shell prompts ("$ ") only the prompted
// lines are commands (the rest is output). A command is a shell segment (split
// at &&, ||, ;, |) whose first word, after VAR=value assignments, is rocksleak
// or a path ending in /rocksleak (./bin/rocksleak), `go run ./cmd/rocksleak`,
// or `make run ARGS='...'` (the arguments of run).
func docCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())

	type logical struct {
		n    int
		text string
	}
	var cmds []docCommand
	name := filepath.Base(path)
	if filepath.Base(filepath.Dir(path)) == "docs" {
		name = "docs/" + name
	}
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			continue
		}
		// A fenced block: lines i+1 up to the closing fence.
		var block []logical
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```"); j++ {
			text, start := lines[j], j
			for strings.HasSuffix(text, `\`) && j+1 < len(lines) {
				j++
				text = strings.TrimRight(strings.TrimSuffix(text, `\`), " ") + " " + strings.TrimSpace(lines[j])
			}
			// A synopsis continues on indented lines of options: "    [--out DIR] ...".
			if len(block) > 0 && strings.HasPrefix(text, " ") && strings.HasPrefix(strings.TrimSpace(text), "[") {
				block[len(block)-1].text += " " + strings.TrimSpace(text)
				continue
			}
			block = append(block, logical{start + 1, text})
		}
		i = j
		prompted := slices.ContainsFunc(block, func(l logical) bool { return strings.HasPrefix(strings.TrimSpace(l.text), "$ ") })
		for _, l := range block {
			text := strings.TrimSpace(l.text)
			if prompted {
				if !strings.HasPrefix(text, "$ ") {
					continue
				}
				text = strings.TrimPrefix(text, "$ ")
			}
			// A shell comment is not part of the command (and its aligning
			// blanks would read as a synopsis's description column).
			if k := strings.Index(text, " #"); k >= 0 {
				text = strings.TrimRight(text[:k], " ")
			}
			// A synopsis ("[--out DIR]", "NAME|FILE", "DIR...", a description
			// column) is not shell: split it at blanks only.
			synopsis := strings.ContainsAny(text, "[]") || strings.Contains(text, "...") ||
				regexp.MustCompile(`\S {2,}\S|\w\|\w`).MatchString(text)
			words := shellWords(text)
			if synopsis {
				words = strings.Fields(strings.ReplaceAll(text, " | ", " or "))
			}
			for _, args := range rocksleakInvocations(words) {
				if len(args) > 0 && strings.HasSuffix(args[0], ":") {
					continue // output such as "rocksleak reliability: scenario ..."
				}
				cmds = append(cmds, docCommand{where: fmt.Sprintf("%s:%d", name, l.n), args: args, synopsis: synopsis})
			}
		}
	}
	return cmds
}

// shellWords splits a command line into words as sh would for our purposes:
// quotes group and are removed, an unquoted # starts a comment, and the
// operators &&, ||, ;, | and redirections are words of their own.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				end = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words
		case c == ';' || c == '|' || c == '&' || c == '>' || c == '<':
			flush()
			op := string(c)
			if i+1 < len(s) && (s[i+1] == c) {
				op += string(c)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// rocksleakInvocations returns the arguments of each rocksleak command in
// words (see docCommands); a redirection ends a command's arguments.
func rocksleakInvocations(words []string) [][]string {
	var out [][]string
	var seg []string
	isOp := func(w string) bool { return slices.Contains([]string{";", "|", "||", "&", "&&"}, w) }
	endSeg := func() {
		for len(seg) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(seg[0]) {
			seg = seg[1:]
		}
		if k := slices.IndexFunc(seg, func(w string) bool { return w == ">" || w == ">>" || w == "<" }); k >= 0 {
			seg = seg[:k]
		}
		switch {
		case len(seg) > 0 && (seg[0] == "rocksleak" || strings.HasSuffix(seg[0], "/rocksleak") && !strings.HasSuffix(seg[0], "cmd/rocksleak")):
			out = append(out, seg[1:])
		case len(seg) >= 3 && seg[0] == "go" && seg[1] == "run" && strings.HasSuffix(seg[2], "cmd/rocksleak"):
			out = append(out, seg[3:])
		case len(seg) >= 2 && seg[0] == "make" && seg[1] == "run":
			for _, w := range seg[2:] {
				if v, ok := strings.CutPrefix(w, "ARGS="); ok {
					out = append(out, append([]string{"run"}, strings.Fields(v)...))
				}
			}
		}
		seg = nil
	}
	for _, w := range words {
		if isOp(w) {
			endSeg()
			continue
		}
		seg = append(seg, w)
	}
	endSeg()
	return out
}

// cliCommands are the commands the CLI's usage lists ("  run  ...").
func cliCommands() []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z][a-z-]*) `).FindAllStringSubmatch(usage, -1) {
		names = append(names, m[1])
	}
	return names
}

// cliFlags returns a command's flags as its real flag set prints them with
// -h (flag.PrintDefaults: "  -name" for a boolean, "  -name type" for a flag
// that takes a value), mapped to whether they take a value.
func cliFlags(t *testing.T, command string) map[string]bool {
	t.Helper()
	flags := map[string]bool{}
	if command == "scenarios" {
		return flags // no flags: "scenarios" or "scenarios show NAME|FILE"
	}
	_, stderr, _ := runCLI(t, command, "-h")
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)( \S.*)?$`).FindAllStringSubmatch(stderr, -1) {
		flags[m[1]] = m[2] != ""
	}
	require.NotEmpty(t, flags, "%s -h prints its flags:\n%s", command, stderr)
	return flags
}

// checkDocCommand checks one command line against the CLI: the command
// exists; every flag is one of its flags, with a value where it takes one; and
// the real flag set parses the flags (-h is appended after them, so nothing
// runs). A synopsis line is checked for its command and flag names only.
// "scenarios" runs for real (it reads the embedded catalogue).
func checkDocCommand(t *testing.T, c docCommand, flagsOf func(string) (map[string]bool, bool)) []string {
	if len(c.args) == 0 {
		return []string{c.where + ": rocksleak with no command"}
	}
	command := c.args[0]
	flags, ok := flagsOf(command)
	if !ok {
		return []string{fmt.Sprintf("%s: unknown command %q in %q", c.where, command, strings.Join(c.args, " "))}
	}
	var problems []string
	if c.synopsis {
		for _, m := range regexp.MustCompile(`(?:^|[\s\[|])--?([a-z][a-z0-9-]*)`).FindAllStringSubmatch(" "+strings.Join(c.args[1:], " "), -1) {
			if _, ok := flags[m[1]]; !ok {
				problems = append(problems, fmt.Sprintf("%s: rocksleak %s has no flag --%s", c.where, command, m[1]))
			}
		}
		return problems
	}
	args := c.args[1:]
	end := len(args) // where the flags end: the first positional argument
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			end = i
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, ok := flags[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: rocksleak %s has no flag --%s", c.where, command, name))
		case takes && !hasValue:
			if i+1 >= len(args) {
				problems = append(problems, fmt.Sprintf("%s: rocksleak %s: --%s needs a value", c.where, command, name))
			}
			i++
		}
	}
	if len(problems) > 0 {
		return problems
	}
	if command == "scenarios" {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != 0 {
			problems = append(problems, fmt.Sprintf("%s: %q exits %d: %s%s", c.where, c.args, code, stdout, stderr))
		}
		return problems
	}
	_, stderr, _ := runCLI(t, append(append([]string{command}, args[:end]...), "-h")...)
	for _, bad := range []string{"flag provided but not defined", "invalid value", "invalid boolean", "bad flag syntax", "flag needs an argument"} {
		if strings.Contains(stderr, bad) {
			problems = append(problems, fmt.Sprintf("%s: %q: %s", c.where, c.args, firstLine(stderr)))
		}
	}
	return problems
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestDocCommands keeps the docs and the CLI in step, as benchstat tests its
// doc: every rocksleak command line in the fenced code blocks of README.md and
// docs/*.md names a command the CLI has and flags that command's real flag
// set defines and parses; and the README's synopsis ("rocksleak merge [--out
// DIR] DIR...") lists every command the CLI has.
// It runs nothing but flag parsing and "rocksleak scenarios".
func TestDocCommands(t *testing.T) {
	commands := cliCommands()
	require.Contains(t, commands, "merge", "the usage lists the commands")
	known := map[string]map[string]bool{}
	for _, c := range commands {
		known[c] = cliFlags(t, c)
	}
	flagsOf := func(c string) (map[string]bool, bool) { f, ok := known[c]; return f, ok }

	seen := map[string]bool{}
	total := 0
	for _, path := range docFiles(t) {
		for _, c := range docCommands(t, path) {
			total++
			for _, p := range checkDocCommand(t, c, flagsOf) {
				t.Error(p)
			}
			if filepath.Base(path) == "README.md" && filepath.Base(filepath.Dir(path)) != "docs" && c.synopsis && len(c.args) > 0 {
				seen[c.args[0]] = true
			}
		}
	}
	t.Logf("%d command lines checked", total)
	assert.Greater(t, total, 20, "the docs' command lines were found")
	for _, c := range commands {
		assert.True(t, seen[c], "README.md's command synopsis lists rocksleak %s", c)
	}
}

// TestDocCommandsCatchDrift is the check's negative control: a wrong command,
// a wrong flag, a flag missing its value and a synopsis naming a flag the
// command lacks are each reported; the right lines are not.
func TestDocCommandsCatchDrift(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	known := map[string]map[string]bool{}
	for _, c := range cliCommands() {
		known[c] = cliFlags(t, c)
	}
	flagsOf := func(c string) (map[string]bool, bool) { f, ok := known[c]; return f, ok }

	// In a block with prompts only the prompted lines are commands.
	require.NoError(t, os.WriteFile(doc, []byte("```\n$ rocksleak compare --md a.json b.json\n"+
		"rocksleak reliability --no-such-flag (output, not a command)\n```\n"), 0o644))
	cmds := docCommands(t, doc)
	require.Len(t, cmds, 1, "%v", cmds)
	assert.Empty(t, checkDocCommand(t, cmds[0], flagsOf))

	// Without prompts every line is a command but printed output.
	require.NoError(t, os.WriteFile(doc, []byte("```sh\n"+
		"rocksleak run --scenario smoke --lifecycles 20\n"+
		"./bin/rocksleak frobnicate --seeds 3\n"+
		"rocksleak reliability --seeds 3 --lifecyles 20\n"+
		"rocksleak run --scenario smoke --lifecycles abc\n"+
		"make run ARGS='--sceanrio smoke'\n"+
		"rocksleak merge --out\n"+
		"rocksleak gate --baseline B.json [--polcy FILE]\n"+
		"rocksleak merge [--out DIR] DIR...     join shards\n"+
		"rocksleak reliability: scenario smoke\n"+
		"```\n"), 0o644))
	cmds = docCommands(t, doc)
	require.Len(t, cmds, 8, "%v", cmds)
	bad := map[int]string{
		1: `unknown command "frobnicate"`,
		2: "has no flag --lifecyles",
		3: "invalid value",
		4: "has no flag --sceanrio",
		5: "--out needs a value",
		6: "has no flag --polcy",
	}
	for i, c := range cmds {
		p := checkDocCommand(t, c, flagsOf)
		if want, ok := bad[i]; ok {
			if assert.Len(t, p, 1, "%s: %q", c.where, c.args) {
				assert.Contains(t, p[0], want)
			}
		} else {
			assert.Empty(t, p, "%s: %q", c.where, c.args)
		}
	}
}
