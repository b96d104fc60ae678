package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/controlroom"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/hosted"
	"github.com/veetbot/veetbrowser/mcpserver"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/tools"
	"github.com/veetbot/veetbrowser/viewer"
)

// EnvToken names the variable holding the bearer token of the HTTP
// transport, and with --hosted the sidecar's token.
const EnvToken = hosted.EnvToken

// EnvMCPToken names the HTTP transport's token when --hosted takes
// EnvToken for the sidecar: the MCP clients must not hold the tenant's
// token, which could approve their own actions.
const EnvMCPToken = "VEETBROWSER_MCP_TOKEN"

const mcpUsage = `usage: veetbrowser mcp [--http ADDR] [flags]

Serves the browser tools over MCP: on stdin/stdout, or with --http as
streamable HTTP. Each MCP session gets its own browser page, closed when the
session ends.

The task grant is explicit: --allow-origin ORIGIN (repeatable) names the only
origins the agent may navigate to and act on, and every top-level navigation
hop (links, forms, redirects, page script) outside them is stopped; or
--allow-any-origin lets it go to any http(s) origin. One of them is required.
Link-local and cloud-metadata destinations (169.254.0.0/16, fe80::/10,
metadata host names) are refused in every case unless --allow-link-local.
Field values are never shown unless --read-values (tool version 1.9.0; never
for a password, credential or payment field); values shown are recorded.

Over HTTP every request needs "Authorization: Bearer $` + EnvToken + `";
without it the answer is 401 {"error":{"code":"unauthorized",...}}. A request
from a web page (an Origin header other than the server's own) is refused with
403 foreign_origin unless --http-allow-origin names that origin. One token
holds at most --max-sessions live sessions (429 too_many_sessions past it);
a session ends on HTTP DELETE, or after --idle-timeout without a request, and
its page is closed then. Tool arguments are limited to %d bytes.

With --control ADDR (a loopback address, e.g. 127.0.0.1:8932) a control room
is served there: a web page listing the live sessions, each with a masked
picture of its page, the model's last view and the recorded timeline. Its
one-time login link is printed on stderr at start. A consequential action the
client cannot ask its user about (no elicitation) waits there for a person's
Approve or Deny, up to --approval-timeout; Deny is approval_refused, no answer
approval_required. --approve CLASS (repeatable: submit, send, publish, pay,
delete, confirm) pre-approves that class in the grant for unattended runs:
no one is asked, and each record it authorized says so.

With --cdp WS_URL the pages run in a browser that is already running. One
on this machine (a loopback endpoint) has every connection of its tool
version 1.9.0 pages go through an egress proxy on loopback that holds it to
the grant and the destination rules. One on another machine cannot reach
that: with --egress-listen HOST:PORT (an address of this machine that the
browser reaches) the proxy listens there instead, and each MCP session's
pages go through it with credentials of the session's own, answered to the
proxy's challenge; whatever comes without them is refused (407) and sent
nowhere. Without --egress-listen (and with --cdp-remote for an endpoint
forwarded to loopback) such a browser's pages keep the in-page guards
alone, which miss some connections (docs/navigation.md).

Every tool call is recorded in the artifact store (--store) before its
result is returned; veetbrowser replay re-derives the model views from it.

With --hosted URL --profile NAME the pages run on a sidecar (veetbrowser
serve) instead of a local browser: each MCP session leases the profile
with the token in $` + EnvToken + `, renews the lease while it lives and
releases it when it ends; the sidecar records the calls and applies its
own destination policy. Approvals are still asked here, and uploads read
from --upload-root here. One profile has one lease: a second MCP session
waits for the first to end (lease_held). With --http, the MCP clients'
token is then $` + EnvMCPToken + `, which must differ from the sidecar's.

flags:
`

// runMCP serves the browser tools over MCP.
func runMCP(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	withHelp(fs, c.stderr, fmt.Sprintf(mcpUsage, tools.MaxArgumentBytes))
	budget := fs.Int("budget", 0, "inline byte budget of model views (default 8192, at least 1024)")
	version := fs.String("tool-version", "", "browser tool version sessions are pinned to (default: the newest)")
	addr := fs.String("http", "", "serve streamable HTTP on this address (bearer token from $"+EnvToken+") instead of stdio")
	uploadRoot := fs.String("upload-root", "", "directory browser_upload may read files from (default: uploads refused)")
	downloadDir := fs.String("download-dir", "", "tool version 1.10.0: directory the pages' downloads land in (default: a private temp dir per session, removed when it ends)")
	maxSessions := fs.Int("max-sessions", mcpserver.DefaultMaxSessions, "HTTP: live MCP sessions one token may hold")
	idle := fs.Duration("idle-timeout", mcpserver.DefaultIdleTimeout, "HTTP: end a session, and close its page, after this long without a request")
	var origins, callerOrigins, resources stringList
	fs.Var(&origins, "allow-origin", "origin (scheme://host[:port]) the agent may navigate to and act on (repeatable)")
	anyOrigin := fs.Bool("allow-any-origin", false, "let the agent navigate to and act on any http(s) origin")
	linkLocal := fs.Bool("allow-link-local", false, "allow link-local and cloud-metadata destinations")
	contain := fs.Bool("contain", false, "tool version 1.9.0: block every request of the pages to an origin outside --allow-origin and --allow-resource, not only navigations, and turn WebRTC off")
	fs.Var(&resources, "allow-resource", "with --contain: origin (scheme://host[:port]) pages may load from without being granted for navigation, e.g. a CDN (repeatable)")
	readValues := fs.Bool("read-values", false, "tool version 1.9.0: show the current value of each editable field that is not a credential or payment field (recorded with the observation)")
	fs.Var(&callerOrigins, "http-allow-origin", "HTTP: web origin (scheme://host[:port]) whose pages may call the server (repeatable; default: none)")
	hostedURL := fs.String("hosted", "", "run the pages on this sidecar (http(s)://host:port) instead of a local browser")
	profile := fs.String("profile", "", "with --hosted: the sidecar profile each session leases")
	control := fs.String("control", "", "serve the control room on this loopback address (login link on stderr)")
	approvalTimeout := fs.Duration("approval-timeout", controlroom.DefaultApprovalTimeout, "with --control: how long an action waits for a person's answer")
	var approve stringList
	fs.Var(&approve, "approve", "pre-approve a consequential class: submit, send, publish, pay, delete or confirm (repeatable; recorded)")
	var bf browserFlags
	bf.register(fs, c.log)
	bf.registerProfile(fs)
	bf.registerRemote(fs)
	var sf storeFlags
	sf.register(fs, true)
	if _, err := parseUsage(fs, args, 0, mcpUsageLine+" (see veetbrowser mcp --help)"); err != nil {
		return err
	}
	if (len(origins) == 0) == !*anyOrigin {
		return errcode.New(errcode.InvalidArgument, "give the task grant: --allow-origin ORIGIN (repeatable), or --allow-any-origin, not both")
	}
	if err := checkVersionFlag(*version); err != nil {
		return err
	}
	if *downloadDir != "" && *hostedURL != "" {
		return errcode.New(errcode.InvalidArgument, "--download-dir needs a local browser, not --hosted")
	}
	if len(resources) > 0 && !*contain {
		return errcode.New(errcode.InvalidArgument, "--allow-resource needs --contain")
	}
	if *maxSessions < 1 || *idle <= 0 {
		return errcode.New(errcode.InvalidArgument, "--max-sessions must be at least 1 and --idle-timeout positive")
	}
	if err := policy.CheckApproveClasses(approve); err != nil {
		return flagged("--approve", err)
	}
	if *approvalTimeout <= 0 {
		return errcode.New(errcode.InvalidArgument, "--approval-timeout must be positive")
	}
	// The control room's address is taken before a browser starts.
	var controlLn net.Listener
	if *control != "" {
		ln, err := viewer.Listen(*control, false)
		if err != nil {
			return flagged("--control", err)
		}
		defer ln.Close()
		controlLn = ln
	}
	opts := mcpserver.Options{Version: *version, ServerVersion: build().version, UploadRoot: *uploadRoot, DownloadDir: *downloadDir,
		Grant:        policy.Grant{Origins: origins, ReadValues: *readValues, Contain: *contain, Resources: resources, Approve: approve},
		Destinations: policy.Destinations{AllowLinkLocal: *linkLocal}, Logger: c.log.Logger}
	// The HTTP clients' token is checked before a browser starts.
	httpToken := os.Getenv(EnvToken)
	if *addr != "" && *hostedURL != "" {
		httpToken = os.Getenv(EnvMCPToken)
		if httpToken == "" || httpToken == os.Getenv(EnvToken) {
			return errcode.New(errcode.InvalidArgument, "with --hosted and --http, set $%s to the MCP clients' token, other than the sidecar's", EnvMCPToken)
		}
	}
	if *addr != "" && httpToken == "" {
		return errcode.New(errcode.InvalidArgument, "--http needs the clients' bearer token in $%s", EnvToken)
	}
	var rt *veetbrowser.Runtime
	if (*hostedURL == "") != (*profile == "") {
		return errcode.New(errcode.InvalidArgument, "--hosted and --profile go together")
	}
	if *hostedURL != "" {
		if len(approve) > 0 || *control != "" {
			return errcode.New(errcode.InvalidArgument, "--approve and --control apply to local pages, not with --hosted")
		}
		if bf.path != "" || bf.cdp != "" || bf.remote || bf.egressListen != "" || bf.profileDir != "" || sf.spec != "" || *linkLocal {
			return errcode.New(errcode.InvalidArgument, "--hosted runs the pages on the sidecar: --browser, --cdp, --cdp-remote, --egress-listen, --profile-dir, --store and --allow-link-local do not apply")
		}
		token := os.Getenv(EnvToken)
		opts.Open = func(ctx context.Context, o veetbrowser.SessionOptions) (veetbrowser.Caller, error) {
			o.Budget = *budget
			// The model is given the view only; the sidecar records the
			// canonical observation.
			return hosted.Open(ctx, hosted.Options{URL: *hostedURL, Token: token, Profile: *profile, Session: o, ViewOnly: true})
		}
	} else {
		var closeBrowser func()
		var err error
		if rt, closeBrowser, err = bf.runtime(ctx, *budget, &sf, veetbrowser.Options{}); err != nil {
			return err
		}
		defer closeBrowser()
	}
	if controlLn != nil {
		room, stop, err := serveControlRoom(ctx, c, controlLn, rt, *approvalTimeout)
		if err != nil {
			return err
		}
		defer stop()
		opts.Room = room
	}
	if *addr == "" {
		return mcpserver.RunStdio(ctx, rt, opts)
	}
	h, err := mcpserver.HTTPHandler(ctx, rt, opts, mcpserver.HTTPOptions{Token: httpToken,
		AllowedOrigins: callerOrigins, MaxSessions: *maxSessions, IdleTimeout: *idle})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "--http: cannot listen on %s", errcode.Quote(*addr))
	}
	fmt.Fprintf(c.stderr, "veetbrowser: MCP on http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: mcpserver.ReadHeaderTimeout}
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

// serveControlRoom serves a control room on ln (loopback only) with the
// runtime's recorded timelines, and prints its one-time login link.
func serveControlRoom(ctx context.Context, c cli, ln net.Listener, rt *veetbrowser.Runtime, timeout time.Duration) (*controlroom.Room, func(), error) {
	opts := controlroom.Options{ApprovalTimeout: timeout}
	if st, ok := rt.Store().(store.Reader); ok {
		h, err := viewer.NewHandler(st, viewer.Options{Images: viewer.StoreImages(st)})
		if err != nil {
			return nil, nil, err
		}
		opts.Timeline = h
	}
	room := controlroom.New(opts)
	srv := &http.Server{Handler: room, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(c.stderr, "veetbrowser: control room at http://%s%s\n", ln.Addr(), room.LoginPath())
	return room, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
