package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/mcpserver"
	"github.com/veetbot/veetbrowser/policy"
)

// EnvToken names the variable holding the bearer token of the HTTP transport.
const EnvToken = "VEETBROWSER_TOKEN"

// MCPCommand serves the browser tools over MCP.
type MCPCommand struct {
	Stderr io.Writer
}

// Run runs the command.
func (c *MCPCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	budget := fs.Int("budget", 0, "inline byte budget of model views (default 8192, at least 1024)")
	version := fs.String("tool-version", "", "browser tool version sessions are pinned to (default: the newest)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (bearer token from $"+EnvToken+") instead of stdio")
	uploadRoot := fs.String("upload-root", "", "directory browser_upload may read files from (default: uploads refused)")
	var origins stringList
	fs.Var(&origins, "allow-origin", "origin the agent may navigate to and act on (repeatable; default: any)")
	var bf browserFlags
	bf.register(fs)
	if pos, err := parseFlags(fs, args); err != nil || len(pos) > 0 {
		if err == flag.ErrHelp {
			return err
		}
		return errcode.New(errcode.InvalidArgument, "usage: veetbrowser mcp [--http ADDR] [--budget BYTES] [--browser PATH]")
	}
	rt, closeBrowser, err := bf.runtime(ctx, *budget)
	if err != nil {
		return err
	}
	defer closeBrowser()
	opts := mcpserver.Options{Version: *version, ServerVersion: Version, UploadRoot: *uploadRoot,
		Grant: policy.Grant{Origins: origins}}
	if *addr == "" {
		return mcpserver.RunStdio(ctx, rt, opts)
	}
	h, err := mcpserver.HTTPHandler(ctx, rt, opts, os.Getenv(EnvToken))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "cannot listen on %s", *addr)
	}
	fmt.Fprintf(c.Stderr, "veetbrowser: MCP on http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
