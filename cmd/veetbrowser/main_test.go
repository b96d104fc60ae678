package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runCLIWithin(t, 2*time.Minute, args...)
}

// runCLIWithin runs the CLI with a bound of its own: the whole suite
// takes longer than one command, above all on a loaded machine (each of its
// scenarios has five minutes).
func runCLIWithin(t *testing.T, bound time.Duration, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	return out.String(), code
}

func TestObserveDemoFitsTheBudget(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "observe", "--budget", "1024")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	out = strings.TrimSuffix(out, "\n")
	if len(out) > 1024 || !json.Valid([]byte(out)) {
		t.Fatalf("view of %d bytes, valid JSON %v", len(out), json.Valid([]byte(out)))
	}
	var v struct {
		Controls []struct{ Ref, Name string }
		Next     map[string]string
	}
	json.Unmarshal([]byte(out), &v)
	if len(v.Controls) == 0 || v.Next["after"] == "" && v.Next["cursor"] == "" {
		t.Fatalf("demo view has no controls or no continuation: %s", out)
	}
}

func TestObserveDemoCanonical(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, "observe", "--canonical")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{`"name": "Publish"`, `"name": "Search posts"`, `"name": "Email (private)"`} {
		if !strings.Contains(out, want) {
			t.Errorf("canonical demo observation lacks %s", want)
		}
	}
	for _, never := range []string{"NEVER-SHOWN", "Hidden publish", "owner@example.invalid"} {
		if strings.Contains(out, never) {
			t.Errorf("canonical demo observation shows %q", never)
		}
	}
}

func TestObserveErrorsAreJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code string
	}{
		{[]string{"observe", "--budget", "10"}, "invalid_argument"},
		{[]string{"observe", "--browser", "/nonexistent/chromium"}, "browser_unavailable"},
		{[]string{"observe", "ftp://example.invalid/"}, "invalid_argument"},
	} {
		out, code := runCLI(t, tc.args...)
		var body struct {
			Error struct{ Code, Message string }
		}
		if code == 0 || json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != tc.code {
			t.Errorf("%v: exit %d, output %s; want code %s", tc.args, code, out, tc.code)
		}
	}
}

func TestSuiteReportsJSON(t *testing.T) {
	t.Parallel()
	// Two scenarios: the suite package runs all of them at two budgets;
	// this test is about the command and its report.
	chosen := []string{"forms", "popup-sign-in"}
	out, code := runCLIWithin(t, 5*time.Minute, "suite", "--budget", "8192", "--json", "--scenario", strings.Join(chosen, ","))
	var report struct {
		Scenarios []struct {
			ID         string         `json:"id"`
			Outcome    string         `json:"outcome"`
			Operations map[string]int `json:"operations"`
			Calls      int            `json:"calls"`
			ViewBytes  int            `json:"view_bytes"`
			DurationMS *int64         `json:"duration_ms"`
			Expected   []string       `json:"expected"`
			Observed   []string       `json:"observed"`
			Error      string         `json:"error"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("exit %d, output is not the JSON report: %v\n%s", code, err, out)
	}
	if code != 0 || len(report.Scenarios) != len(chosen) {
		var failed []string
		for _, s := range report.Scenarios {
			if s.Outcome != "pass" {
				failed = append(failed, fmt.Sprintf("%s (%s; expected %q, observed %q)", s.ID, s.Error, s.Expected, s.Observed))
			}
		}
		t.Fatalf("exit %d with %d scenarios; failed: %s", code, len(report.Scenarios), strings.Join(failed, ", "))
	}
	for i, s := range report.Scenarios {
		if s.ID != chosen[i] || s.Outcome != "pass" || s.DurationMS == nil || s.Operations["navigate"] == 0 || s.Calls == 0 || s.ViewBytes == 0 || s.Expected == nil || s.Observed == nil {
			t.Errorf("scenario %+v", s)
		}
	}
}

// TestSuiteRefusesAnUnknownScenario: a typo in --scenario is refused before
// a browser starts, never a run of nothing that passes.
func TestSuiteRefusesAnUnknownScenario(t *testing.T) {
	t.Parallel()
	out, _, code := runCLIWithStderr(t, "suite", "--scenario", "forms,no-such-scenario", "--browser", "/nonexistent/chromium")
	var body struct {
		Error struct{ Code, Message string }
	}
	if code == 0 || json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != "invalid_argument" ||
		!strings.Contains(body.Error.Message, `no scenario "no-such-scenario"`) || !strings.Contains(body.Error.Message, "drag-reorder") {
		t.Fatalf("exit %d, output %s; want invalid_argument naming the scenarios", code, out)
	}
}

func runCLIWithStderr(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestCDPWantsAWebSocketURL(t *testing.T) {
	t.Parallel()
	out, _, code := runCLIWithStderr(t, "observe", "--cdp", "http://127.0.0.1:1/json")
	var body struct {
		Error struct{ Code, Message string }
	}
	if code == 0 || json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != "invalid_argument" {
		t.Fatalf("exit %d, output %s; want invalid_argument", code, out)
	}
}

// TestInternalCausesAreLoggedNotPrinted: the public line goes to stdout, the
// internal cause to the stderr log.
func TestInternalCausesAreLoggedNotPrinted(t *testing.T) {
	t.Parallel()
	out, errs, code := runCLIWithStderr(t, "observe", "--cdp", "ws://127.0.0.1:1/devtools/browser/none")
	var body struct {
		Error struct{ Code, Message string }
	}
	if code == 0 || json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != "browser_unavailable" {
		t.Fatalf("exit %d, output %s", code, out)
	}
	if strings.Contains(out, "127.0.0.1:1") || strings.Contains(out, "refused") {
		t.Errorf("stdout carries internal detail: %s", out)
	}
	if !strings.Contains(errs, "level=WARN") || !strings.Contains(errs, "code=browser_unavailable") || !strings.Contains(errs, "cause=") {
		t.Errorf("stderr does not log the cause: %s", errs)
	}
	_, errs, _ = runCLIWithStderr(t, "observe", "--log-level", "error", "--cdp", "ws://127.0.0.1:1/devtools/browser/none")
	if errs != "" {
		t.Errorf("--log-level error still logs a warning: %s", errs)
	}
	_, _, code = runCLIWithStderr(t, "observe", "--log-level", "loud")
	if code == 0 {
		t.Error("--log-level loud accepted")
	}
}

func TestMCPHelpDocumentsTheLimits(t *testing.T) {
	t.Parallel()
	_, errs, code := runCLIWithStderr(t, "mcp", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-max-sessions", "(default 32)", "-idle-timeout", "(default 10m0s)", "-http-allow-origin",
		"401", "403 foreign_origin", "429 too_many_sessions", "DELETE", "1048576 bytes"} {
		if !strings.Contains(errs, want) {
			t.Errorf("mcp --help lacks %q", want)
		}
	}
	for _, want := range []string{"-allow-origin", "-allow-any-origin", "One of them is required", "-allow-link-local", "-read-values", "-download-dir"} {
		if !strings.Contains(errs, want) {
			t.Errorf("mcp --help lacks %q", want)
		}
	}
	// The grant is explicit: neither or both is refused.
	for _, args := range [][]string{{"mcp"}, {"mcp", "--allow-any-origin", "--allow-origin", "http://127.0.0.1:1"}} {
		out, _, code := runCLIWithStderr(t, args...)
		if code == 0 || !strings.Contains(out, "invalid_argument") || !strings.Contains(out, "--allow-any-origin") {
			t.Errorf("%v: exit %d, %s", args, code, out)
		}
	}
	// Downloads land on the machine of the browser: a sidecar's are its own.
	if out, _, code := runCLIWithStderr(t, "mcp", "--allow-any-origin", "--hosted", "http://127.0.0.1:1", "--profile", "p", "--download-dir", t.TempDir()); code == 0 || !strings.Contains(out, "--download-dir") {
		t.Errorf("--download-dir with --hosted: exit %d, %s", code, out)
	}
	out, _, code := runCLIWithStderr(t, "mcp", "--allow-any-origin", "--max-sessions", "0")
	if code == 0 || !strings.Contains(out, "invalid_argument") {
		t.Errorf("--max-sessions 0: exit %d, %s", code, out)
	}
}

// TestUsageLinesListEveryFlag: each subcommand's usage line names every
// flag its help lists, so the two never drift apart.
func TestUsageLinesListEveryFlag(t *testing.T) {
	t.Parallel()
	lines := map[string]string{"observe": observeUsageLine, "read": readUsageLine, "find": findUsageLine, "mcp": mcpUsageLine,
		"suite": suiteUsageLine, "replay": replayUsageLine, "sessions": sessionsUsageLine, "serve": serveUsageLine, "view": viewUsageLine,
		"doctor": doctorUsageLine}
	for command, line := range lines {
		help := helpOf(t, command)
		flags := 0
		for _, l := range strings.Split(help, "\n") {
			if !strings.HasPrefix(l, "  -") {
				continue
			}
			flags++
			name := "--" + strings.Fields(l)[0][1:]
			if !slices.ContainsFunc(strings.Fields(line), func(w string) bool { return strings.Trim(w, "[]()") == name }) {
				t.Errorf("%s: usage line lacks %s: %s", command, name, line)
			}
		}
		if flags == 0 {
			t.Errorf("%s --help lists no flags: %s", command, help)
		}
	}
}

// helpOf is what `command --help` prints.
func helpOf(t *testing.T, command string) string {
	_, help, code := runCLIWithStderr(t, command, "--help")
	if code != 0 {
		t.Errorf("%s --help: exit %d", command, code)
	}
	return help
}

// TestREADMEListsEveryUsageLine: the README's Use block shows each
// command's usage line as --help prints it, so the two cannot drift.
func TestREADMEListsEveryUsageLine(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{observeUsageLine, readUsageLine, findUsageLine, mcpUsageLine, serveUsageLine,
		tokenUsageLine, suiteUsageLine, replayUsageLine, sessionsUsageLine, viewUsageLine, doctorUsageLine, versionUsageLine, helpUsageLine} {
		if !strings.Contains(string(readme), "\n"+line+"\n") {
			t.Errorf("README.md lacks the usage line %q", line)
		}
	}
}
