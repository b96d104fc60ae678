package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestMCPEgressListen: `mcp --cdp WS --egress-listen HOST:PORT` puts a
// browser on another machine (here one on this machine's loopback, and the
// proxy on 127.0.0.2, which stand for that case) behind the egress proxy:
// a contained page's preconnect hint, image, fetch and WebSocket towards
// another origin reach 0 connections, and the refused ones are counted in
// blocked. With --cdp-remote instead (the guards alone) the same page's
// preconnect hint opens a connection to that origin: the proxy is what
// closes it.
func TestMCPEgressListen(t *testing.T) {
	t.Parallel()
	other := browsertest.ServeCounted(t, "127.0.0.2:0", nil)
	ws := strings.Replace(other.URL, "http://", "ws://", 1)
	site := browsertest.ServeCounted(t, "127.0.0.1:0", map[string]string{
		"/": fmt.Sprintf(`<!doctype html><title>Live scores</title><link rel="preconnect" href="%[1]s">
<main><h1>Live scores</h1><img src="%[1]s/pixel.gif" alt=""><p id="out">waiting</p></main>
<script>
let socket; try { new WebSocket(%[2]q); socket = "made"; } catch (e) { socket = "refused"; }
fetch(%[1]q + "/score").then(() => "reached", () => "failed").then((f) => { out.textContent = "socket " + socket + ", fetch " + f; });
</script>`, other.URL, ws+"/feed"),
	})
	devtools, _ := browsertest.DevTools(t)
	bin := installedBinary(t)
	run := func(remote ...string) string {
		t.Helper()
		args := append([]string{"mcp", "--allow-origin", site.URL, "--contain", "--store", "none", "--cdp", devtools}, remote...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "egress-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		call := func(name string, args map[string]any) string {
			res, err := cs.CallTool(browsertest.Context(t, time.Minute), &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", name, err, res)
			}
			return res.Content[0].(*mcp.TextContent).Text
		}
		views := call("browser_navigate", map[string]any{"url": site.URL + "/"})
		for i := 0; !strings.Contains(views, "socket ") && i < 50; i++ {
			time.Sleep(200 * time.Millisecond)
			views += call("browser_observe", map[string]any{})
		}
		time.Sleep(1500 * time.Millisecond) // what the hint would open
		return views + call("browser_observe", map[string]any{})
	}

	guarded := run("--cdp-remote")
	if !strings.Contains(guarded, "socket refused, fetch failed") {
		t.Fatalf("with the guards alone the page saw: %s", guarded)
	}
	hinted := other.Conns.Load()
	if hinted == 0 || other.Requests.Load() != 0 {
		t.Fatalf("with the guards alone: %d connections, %d requests (%v); want the hint's connection and no request", hinted, other.Requests.Load(), other.Seen())
	}
	proxied := run("--egress-listen", "127.0.0.2:0")
	if !strings.Contains(proxied, "Live scores") || !strings.Contains(proxied, "fetch failed") {
		t.Fatalf("behind the egress proxy the page saw: %s", proxied)
	}
	if c, n := other.Conns.Load()-hinted, other.Requests.Load(); c != 0 || n != 0 {
		t.Fatalf("behind the egress proxy the other origin got %d connections and %d requests: %v", c, n, other.Seen())
	}
	if !strings.Contains(proxied, other.URL) {
		t.Errorf("nothing blocked under %s: %s", other.URL, proxied)
	}
}

// --cdp-remote and --egress-listen describe a --cdp browser, and the
// egress address is the one the browser dials: a launched browser and an
// unspecified host are refused before anything starts.
func TestEgressListenFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"mcp", "--allow-any-origin", "--egress-listen", "127.0.0.2:0"},
		{"mcp", "--allow-any-origin", "--cdp-remote"},
		{"mcp", "--allow-any-origin", "--store", "none", "--cdp", "ws://127.0.0.1:1/devtools/browser/none", "--egress-listen", "0.0.0.0:0"},
		{"serve", "--data", t.TempDir(), "--tokens", "none", "--egress-listen", "127.0.0.2:0"},
	} {
		out, errs, code := runCLIWithStderr(t, args...)
		if code == 0 || !strings.Contains(out+errs, "invalid_argument") {
			t.Errorf("%v: exit %d, %s %s", args, code, out, errs)
		}
	}
}
