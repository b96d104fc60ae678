package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
)

const (
	versionUsageLine = "veetbrowser version"
	helpUsageLine    = "veetbrowser help [COMMAND]"
)

// A commandHelp is what veetbrowser help COMMAND prints before the
// command's flags: its usage line and two examples to copy.
type commandHelp struct {
	line     string
	examples [2]string
}

var helps = map[string]commandHelp{
	"observe": {observeUsageLine, [2]string{
		"veetbrowser observe                       # the built-in demo site, offline",
		"veetbrowser observe https://example.com/ --budget 2048"}},
	"read": {readUsageLine, [2]string{
		"veetbrowser read https://example.com/article",
		"veetbrowser read https://example.com/article --budget 1024 --store none"}},
	"find": {findUsageLine, [2]string{
		`veetbrowser find https://example.com/ "Sign in"`,
		`veetbrowser find https://example.com/pricing "per month" --budget 2048`}},
	"mcp": {mcpUsageLine, [2]string{
		"veetbrowser mcp --allow-origin https://example.com",
		"VEETBROWSER_TOKEN=$(openssl rand -hex 16) veetbrowser mcp --http 127.0.0.1:8931 --allow-any-origin"}},
	"serve": {serveUsageLine, [2]string{
		"veetbrowser serve --data /var/lib/veetbrowser --tokens tokens.txt",
		"veetbrowser serve --data ./data --tokens tokens.txt --listen 127.0.0.1:8443 --tls-cert cert.pem --tls-key key.pem"}},
	"token": {tokenUsageLine, [2]string{
		"veetbrowser token acme >> tokens.txt      # the token itself goes to stderr",
		"veetbrowser token ci-runner 2>token.txt >> tokens.txt"}},
	"suite": {suiteUsageLine, [2]string{
		"veetbrowser suite",
		"veetbrowser suite --budget 1024 --json --scenario forms,popup-sign-in"}},
	"replay": {replayUsageLine, [2]string{
		"veetbrowser replay                        # the newest recorded session",
		"veetbrowser replay SESSION --html timeline.html"}},
	"sessions": {sessionsUsageLine, [2]string{
		"veetbrowser sessions",
		"veetbrowser sessions --store postgres://user@127.0.0.1/veet --limit 5"}},
	"view": {viewUsageLine, [2]string{
		"veetbrowser view",
		"veetbrowser view --listen 127.0.0.1:8080 --store ./artifacts.db"}},
	"doctor": {doctorUsageLine, [2]string{
		"veetbrowser doctor",
		"VEETBROWSER_TOKEN=... veetbrowser doctor --json --hosted https://sidecar.example:8443"}},
	"version": {versionUsageLine, [2]string{
		"veetbrowser version",
		"veetbrowser version | head -1"}},
	"help": {helpUsageLine, [2]string{
		"veetbrowser help",
		"veetbrowser help mcp"}},
}

// help is a command too; it reads the table of commands, so it joins it
// at init.
func init() { commands["help"] = runHelp }

// runHelp prints the overview, or one command's usage line, examples and
// flags with their defaults.
func runHelp(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	pos, err := parseUsage(fs, args, 1, helpUsageLine)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		usage(c.stdout)
		return nil
	}
	if _, ok := commands[pos[0]]; !ok {
		return errcode.New(errcode.InvalidArgument, "no command %s: the commands are %s", errcode.Quote(pos[0]), strings.Join(commandNames(), ", "))
	}
	return printHelp(ctx, c, pos[0], c.stdout)
}

// printHelp writes the help of command name to w: its usage line and
// examples, then what the command itself prints on --help (its flags with
// their defaults, after its own text where it has one).
func printHelp(ctx context.Context, c cli, name string, w io.Writer) error {
	h := helps[name]
	fmt.Fprintf(w, "usage: %s\n\nexamples:\n  %s\n  %s\n\n", h.line, h.examples[0], h.examples[1])
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintln(w, "flags:")
		fs.PrintDefaults()
	}
	// The command parses "-h" and stops there: nothing else runs.
	err := commands[name](ctx, cli{stdout: w, stderr: w, log: c.log}, fs, []string{"-h"})
	if err == flag.ErrHelp {
		return nil
	}
	return err
}

func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
