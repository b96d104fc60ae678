package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A readmeServer is one MCP server entry of the README's client snippets:
// a command line (stdio), or a URL and its headers (HTTP).
type readmeServer struct {
	snippet string
	env     []string // NAME=value before the command
	argv    []string // stdio: the command and its arguments
	url     string   // HTTP
	headers map[string]string
}

// readmeSnippets reads the fenced blocks of the README's "Use it from your
// agent" section: shell lines that start the server (claude mcp add … --
// CMD, or veetbrowser mcp …) and JSON client configurations.
func readmeSnippets(t *testing.T) []readmeServer {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(b)[strings.Index(string(b), "\n## Use it from your agent\n")+1:], "## Use it from your agent\n")
	if !ok {
		t.Fatal(`README.md has no "## Use it from your agent" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []readmeServer
	for _, m := range regexp.MustCompile("(?s)```(sh|json)\n(.*?)```").FindAllStringSubmatch(section, -1) {
		if m[1] == "json" {
			out = append(out, jsonServers(t, m[2])...)
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(m[2]), "\n") {
			s := readmeServer{snippet: line}
			words := strings.Fields(line)
			if i := slices.Index(words, "--"); len(words) > 3 && words[0] == "claude" && words[1] == "mcp" && i > 0 {
				words = words[i+1:]
			}
			for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
				s.env, words = append(s.env, words[0]), words[1:]
			}
			if len(words) < 2 || words[0] != "veetbrowser" || words[1] != "mcp" {
				t.Fatalf("README snippet %q does not start the MCP server", line)
			}
			s.argv = words
			out = append(out, s)
		}
	}
	return out
}

func jsonServers(t *testing.T, block string) []readmeServer {
	var cfg struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("README JSON snippet does not parse: %v\n%s", err, block)
	}
	var out []readmeServer
	for _, raw := range []map[string]json.RawMessage{cfg.MCPServers, cfg.Servers} {
		for name, entry := range raw {
			var e struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			}
			if err := json.Unmarshal(entry, &e); err != nil || name != "veetbrowser" {
				t.Fatalf("README snippet server %q: %v", name, err)
			}
			out = append(out, readmeServer{snippet: string(entry), argv: append([]string{e.Command}, e.Args...), url: e.URL, headers: e.Headers})
			if e.URL != "" {
				out[len(out)-1].argv = nil
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("README JSON snippet names no server:\n%s", block)
	}
	return out
}

// TestREADMEClientSnippetsWork starts the server of every client snippet
// of the README with exactly its arguments and completes an MCP handshake
// and tools/list with it, so that the snippets cannot rot.
func TestREADMEClientSnippetsWork(t *testing.T) {
	t.Parallel()
	snippets := readmeSnippets(t)
	var stdio, httpServers, httpClients []readmeServer
	for _, s := range snippets {
		switch {
		case s.url != "":
			httpClients = append(httpClients, s)
		case slices.Contains(s.argv, "--http"):
			httpServers = append(httpServers, s)
		default:
			stdio = append(stdio, s)
		}
	}
	// Claude Code, Claude Desktop and Cursor, VS Code; one HTTP server and
	// the client entry that reaches it.
	if len(stdio) < 3 || len(httpServers) != 1 || len(httpClients) != 1 {
		t.Fatalf("README snippets: %d stdio, %d HTTP servers, %d HTTP clients: %+v", len(stdio), len(httpServers), len(httpClients), snippets)
	}
	for _, s := range snippets {
		if s.argv != nil && !slices.Contains(s.argv, "--allow-origin") && !slices.Contains(s.argv, "--allow-any-origin") {
			t.Errorf("README snippet %q names no grant", s.snippet)
		}
	}
	bin := installedBinary(t)
	for _, s := range stdio {
		t.Run("stdio", func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, s.argv[1:]...)
			cmd.Env = append(append(os.Environ(), "XDG_DATA_HOME="+t.TempDir()), s.env...)
			listToolsOver(t, s.snippet, &mcp.CommandTransport{Command: cmd})
		})
	}
	t.Run("http", func(t *testing.T) {
		server, client := httpServers[0], httpClients[0]
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, server.argv[1:]...)
		cmd.Env = append(append(os.Environ(), "XDG_DATA_HOME="+t.TempDir()), server.env...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
		// The server says where it listens once it does.
		sc := bufio.NewScanner(stderr)
		for sc.Scan() && !strings.Contains(sc.Text(), "MCP on http://") {
		}
		go func() {
			for sc.Scan() {
			}
		}()
		listToolsOver(t, client.snippet, &mcp.StreamableClientTransport{Endpoint: client.url,
			HTTPClient: &http.Client{Transport: headers{client.headers, http.DefaultTransport}}})
	})
}

// listToolsOver completes the handshake and tools/list over transport.
func listToolsOver(t *testing.T, snippet string, transport mcp.Transport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme-test"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("snippet %s: handshake: %v", snippet, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "browser_navigate" }) {
		t.Fatalf("snippet %s: tools/list: %v", snippet, err)
	}
}

// headers adds a client snippet's headers to every request.
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}
