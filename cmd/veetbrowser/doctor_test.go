package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/sidecar/sidecartest"
	"github.com/veetbot/veetbrowser/tools"
)

type doctorReport struct {
	OK     bool    `json:"ok"`
	Checks []check `json:"checks"`
}

func runDoctorJSON(t *testing.T, args ...string) (doctorReport, int) {
	t.Helper()
	out, code := runCLI(t, append([]string{"doctor", "--json"}, args...)...)
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json printed %q: %v", out, err)
	}
	return r, code
}

func checkNamed(t *testing.T, r doctorReport, name string) check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("doctor has no %q check: %+v", name, r.Checks)
	return check{}
}

// TestDoctorPassesHere: on a machine set up as the tests need, every
// check passes, in order, and the text form says so line by line.
func TestDoctorPassesHere(t *testing.T) {
	t.Parallel()
	uploads := t.TempDir()
	r, code := runDoctorJSON(t, "--store", filepath.Join(t.TempDir(), "a.db"), "--upload-root", uploads)
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
		if !c.OK || c.Fix != "" {
			t.Errorf("check %+v", c)
		}
	}
	if code != 0 || !r.OK || strings.Join(names, ",") != "browser,headless start,store,upload root,MCP" {
		t.Fatalf("exit %d, report %+v", code, r)
	}
	if v := checkNamed(t, r, "browser").Verdict; !strings.Contains(v, "Chromium") {
		t.Errorf("browser verdict %q names no version", v)
	}
	if v := checkNamed(t, r, "MCP").Verdict; !strings.Contains(v, fmt.Sprintf("answer %d tools", len(tools.Tools(tools.Newest())))) {
		t.Errorf("MCP verdict %q", v)
	}
	out, code := runCLI(t, "doctor", "--store", "none")
	if code != 0 || strings.Count(out, "\nok   ")+1 != 5 || strings.Contains(out, "FAIL") {
		t.Errorf("doctor (text): exit %d\n%s", code, out)
	}
}

// TestDoctorNamesTheFix: a missing browser, an unwritable store, a refused
// PostgreSQL DSN and an unreadable upload root each fail their check with
// the fix named, and the exit status is not 0.
func TestDoctorNamesTheFix(t *testing.T) {
	t.Parallel()
	t.Run("missing browser", func(t *testing.T) {
		t.Parallel()
		r, code := runDoctorJSON(t, "--browser", "/nonexistent/chromium", "--store", "none")
		found, started, handshake := checkNamed(t, r, "browser"), checkNamed(t, r, "headless start"), checkNamed(t, r, "MCP")
		if code == 0 || r.OK || found.OK || !strings.Contains(found.Fix, "--browser") || !strings.Contains(found.Fix, "apt-get install -y chromium") {
			t.Errorf("exit %d, browser check %+v", code, found)
		}
		if started.OK || handshake.OK || !strings.Contains(started.Verdict, "not tried") {
			t.Errorf("with no browser: %+v, %+v", started, handshake)
		}
		if !checkNamed(t, r, "store").OK {
			t.Errorf("store none fails: %+v", r)
		}
	})
	t.Run("unwritable store", func(t *testing.T) {
		t.Parallel()
		// Under a regular file no directory can be made, whoever runs the
		// test (root ignores permission bits).
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		r, code := runDoctorJSON(t, "--store", filepath.Join(file, "sub", "a.db"))
		st := checkNamed(t, r, "store")
		if code == 0 || st.OK || !strings.Contains(st.Fix, "--store") || !strings.Contains(st.Verdict, "cannot be opened") {
			t.Errorf("exit %d, store check %+v", code, st)
		}
		if !checkNamed(t, r, "browser").OK || !checkNamed(t, r, "MCP").OK {
			t.Errorf("a bad store fails other checks: %+v", r)
		}
	})
	t.Run("refused DSN", func(t *testing.T) {
		t.Parallel()
		// Port 1 on loopback: nothing listens, the connection is refused.
		r, code := runDoctorJSON(t, "--store", "postgres://veet@127.0.0.1:1/veet?connect_timeout=5", "--browser", "/nonexistent/chromium")
		st := checkNamed(t, r, "store")
		if code == 0 || st.OK || !strings.Contains(st.Verdict, "PostgreSQL") || !strings.Contains(st.Fix, "postgres://") {
			t.Errorf("exit %d, store check %+v", code, st)
		}
	})
	t.Run("unreadable upload root", func(t *testing.T) {
		t.Parallel()
		r, code := runDoctorJSON(t, "--upload-root", filepath.Join(t.TempDir(), "missing"), "--store", "none", "--browser", "/nonexistent/chromium")
		up := checkNamed(t, r, "upload root")
		if code == 0 || up.OK || !strings.Contains(up.Fix, "--upload-root") {
			t.Errorf("exit %d, upload check %+v", code, up)
		}
	})
}

// TestDoctorChecksASidecar: a live sidecar and its token pass with the
// tenant named; a wrong token fails with the token's fix, a sidecar that
// does not answer with the address's.
func TestDoctorChecksASidecar(t *testing.T) {
	sc := sidecartest.Start(t, refuseBrowsers{}, 0)
	for _, tc := range []struct {
		url, token string
		ok         bool
		want       string
	}{
		{sc.URL, sc.Token, true, `tenant "tenant"`},
		{sc.URL, "wrong", false, "$" + EnvToken},
		{"http://127.0.0.1:1", sc.Token, false, "veetbrowser serve"},
	} {
		t.Setenv(EnvToken, tc.token)
		r, _ := runDoctorJSON(t, "--hosted", tc.url, "--store", "none", "--browser", "/nonexistent/chromium")
		c := checkNamed(t, r, "sidecar")
		if c.OK != tc.ok || !strings.Contains(c.Verdict+c.Fix, tc.want) {
			t.Errorf("%s with token %q: %+v; want ok %v and %q", tc.url, tc.token, c, tc.ok, tc.want)
		}
	}
}

// refuseBrowsers starts no browser: the doctor's sidecar check never
// leases one.
type refuseBrowsers struct{}

func (refuseBrowsers) Open(context.Context, string) (browser.Provider, error) {
	return nil, errcode.New(errcode.BrowserUnavailable, "this sidecar starts no browser")
}

// TestHelpTeaches: help COMMAND prints the usage line, two examples and the
// flags with their defaults, for every command; an unknown one is refused
// with the list.
func TestHelpTeaches(t *testing.T) {
	t.Parallel()
	for name := range commands {
		h, ok := helps[name]
		if !ok {
			t.Errorf("command %s has no help entry", name)
			continue
		}
		out, code := runCLI(t, "help", name)
		if code != 0 || !strings.HasPrefix(out, "usage: "+h.line+"\n") || !strings.Contains(out, "examples:\n  "+h.examples[0]+"\n  "+h.examples[1]+"\n") {
			t.Errorf("help %s: exit %d\n%s", name, code, out)
		}
		for _, ex := range h.examples {
			if !strings.HasPrefix(ex, "veetbrowser "+name) && !strings.Contains(ex, " veetbrowser "+name) {
				t.Errorf("help %s: example %q does not run the command", name, ex)
			}
		}
	}
	out, _ := runCLI(t, "help", "observe")
	for _, want := range []string{"-budget int", "(default 8192, at least 1024)", "-store string", "-log-level level", "(default WARN)"} {
		if !strings.Contains(out, want) {
			t.Errorf("help observe lacks %q:\n%s", want, out)
		}
	}
	out, code := runCLI(t, "help", "obsrve")
	if code == 0 || !strings.Contains(out, `no command \"obsrve\"`) || !strings.Contains(out, "observe") {
		t.Errorf("help obsrve: exit %d, %s", code, out)
	}
}

// TestFlagErrorsNameTheFlag: an error a flag causes names that flag.
func TestFlagErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	tokens := filepath.Join(t.TempDir(), "tokens")
	_, line, _ := sidecar.NewToken("acme")
	os.WriteFile(tokens, []byte(line+"\n"), 0o600)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"observe", "--budget", "10"}, "--budget"},
		{[]string{"observe", "--budget", "many"}, "-budget"},
		{[]string{"observe", "--tool-version", "9.9"}, "--tool-version"},
		{[]string{"read", "http://127.0.0.1:1/", "--tool-version", "0.1"}, "--tool-version"},
		{[]string{"mcp", "--allow-any-origin", "--tool-version", "x"}, "--tool-version"},
		{[]string{"observe", "--store", filepath.Join(file, "a.db")}, "--store"},
		{[]string{"sessions", "--store", filepath.Join(file, "a.db")}, "--store"},
		{[]string{"serve"}, "--data"},
		{[]string{"serve", "--data", t.TempDir(), "--tokens", filepath.Join(t.TempDir(), "none")}, "--tokens"},
		{[]string{"sessions", "--limit", "ten"}, "-limit"},
		{[]string{"mcp"}, "--allow-origin"},
		{[]string{"mcp", "--allow-any-origin", "--store", "none", "--http", "127.0.0.1:notaport"}, "--http"},
		{[]string{"view", "--store", "none", "--listen", "0.0.0.0:0"}, "--listen"},
		{[]string{"mcp", "--allow-any-origin", "--approve", "transfer"}, "--approve"},
		{[]string{"mcp", "--allow-any-origin", "--approval-timeout", "0s"}, "--approval-timeout"},
		{[]string{"mcp", "--allow-any-origin", "--control", "0.0.0.0:0"}, "--control"},
		{[]string{"serve", "--data", t.TempDir(), "--tokens", tokens, "--listen", "127.0.0.1:notaport"}, "--listen"},
	} {
		out, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(out, tc.flag) {
			t.Errorf("%v: exit %d, %s; want the message to name %s", tc.args, code, out, tc.flag)
		}
	}
}
