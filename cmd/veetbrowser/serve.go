package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/sidecar"
	"github.com/veetbot/veetbrowser/store/storespec"
)

const serveUsageLine = "veetbrowser serve --data DIR --tokens FILE [--listen ADDR] [--store SPEC] [--tls-cert FILE --tls-key FILE] [--cdp WS_URL... [--cdp-remote] [--egress-listen HOST:PORT]] [--browser PATH] [--max-leases N] [--allow-private] [--log-level LEVEL]"

const serveUsage = `usage: ` + serveUsageLine + `

Runs the hosted sidecar: an HTTP API (/v1, described at /v1/openapi.json)
that owns browsers, persistent profiles and leases (docs/sidecar.md).

--tokens FILE   one line per token: a tenant name and sha256:HEX of the
                token (never the token itself); make one with
                "veetbrowser token TENANT". Clients send
                Authorization: Bearer TOKEN; a tenant sees only its own
                profiles.
--data DIR      profiles live here (DIR/tenants/T/profiles/NAME), each a
                persistent Chromium user-data dir, never served as bytes.
--store SPEC    leases and call records: default DIR/store.db (SQLite);
                a postgres:// URL lets several sidecars share the leases
                (one live lease per profile between them).
--tls-cert/--tls-key serve HTTPS; without them serve plain HTTP on
                loopback behind a TLS-terminating reverse proxy.
--cdp WS_URL    (repeatable) attach leases to these browsers, one lease
                per browser, each in a browser context of its own that
                is thrown away at its end (a fleet keeps no profile).
                A fleet browser on this machine (a loopback endpoint)
                sends every connection through an egress proxy on
                loopback that holds it to the destination rules.
--egress-listen HOST:PORT  the fleet runs on other machines, which reach
                this one at HOST:PORT: the egress proxy listens there
                and each lease's browser context goes through it with
                credentials of its own (anything without them: 407).
--cdp-remote    the fleet runs on other machines (endpoints forwarded to
                loopback) and no --egress-listen: the pages keep the
                in-page guards alone, which miss some connections
                (docs/navigation.md).
--allow-private let pages reach loopback and private addresses: by
                default every navigation hop to 127.0.0.0/8, 10/8,
                192.168/16, … (and link-local, metadata) is refused, so
                tenants cannot reach the sidecar's own network.

GET /healthz and GET /metrics (Prometheus) need no token. Logs are JSON on
stderr and never hold a token, an argument or a page's text. SIGTERM
stops taking requests, waits for those in flight, releases every lease and
closes the browsers.

flags:
`

// runServe runs the hosted sidecar.
func runServe(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	withHelp(fs, c.stderr, serveUsage)
	listen := fs.String("listen", "127.0.0.1:8790", "address to serve on")
	data := fs.String("data", "", "directory of the profiles (required)")
	tokens := fs.String("tokens", "", "token file (required)")
	spec := fs.String("store", "", "lease and artifact store: a SQLite file or a postgres:// URL (default: DATA/store.db)")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM); with --tls-key, serve HTTPS")
	key := fs.String("tls-key", "", "TLS private key (PEM)")
	maxLeases := fs.Int("max-leases", sidecar.DefaultMaxLeases, "live leases (browsers) this process runs at most")
	execPath := fs.String("browser", "", "Chromium binary (default: $VEETBROWSER_CHROMIUM, then the usual paths)")
	allowPrivate := fs.Bool("allow-private", false, "let leased pages reach loopback and private addresses (default: refused)")
	var fleet stringList
	fs.Var(&fleet, "cdp", "DevTools endpoint (ws://…) of a fleet browser to attach leases to (repeatable)")
	remote := fs.Bool("cdp-remote", false, "the --cdp fleet runs on other machines (endpoints forwarded to loopback): its pages keep the in-page guards alone, unless --egress-listen")
	egressListen := fs.String("egress-listen", "", "the --cdp fleet runs on other machines, which reach this one at `HOST:PORT`: every connection of a lease's pages goes through the egress proxy listening there, with the lease's own credentials")
	level := new(slog.LevelVar)
	level.Set(slog.LevelInfo)
	fs.TextVar(level, "log-level", level, "log from this `level` on: debug, info, warn or error")
	if _, err := parseUsage(fs, args, 0, serveUsageLine+" (see veetbrowser serve --help)"); err != nil {
		return err
	}
	if *data == "" || *tokens == "" {
		return errcode.New(errcode.InvalidArgument, "--data DIR and --tokens FILE are required; usage: %s", serveUsageLine)
	}
	if *maxLeases < 1 {
		return errcode.New(errcode.InvalidArgument, "--max-leases must be at least 1")
	}
	if (*cert == "") != (*key == "") {
		return errcode.New(errcode.InvalidArgument, "--tls-cert and --tls-key go together")
	}
	if len(fleet) > 0 && *execPath != "" {
		return errcode.New(errcode.InvalidArgument, "--cdp attaches to a fleet; --browser launches one: choose one")
	}
	for _, ws := range fleet {
		if !strings.HasPrefix(ws, "ws://") && !strings.HasPrefix(ws, "wss://") {
			return errcode.New(errcode.InvalidArgument, "--cdp wants a ws:// or wss:// DevTools URL")
		}
	}
	if len(fleet) == 0 && (*remote || *egressListen != "") {
		return errcode.New(errcode.InvalidArgument, "--cdp-remote and --egress-listen describe a --cdp fleet on other machines")
	}
	log := slog.New(slog.NewJSONHandler(c.stderr, &slog.HandlerOptions{Level: level}))
	f, err := os.Open(*tokens)
	if err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "--tokens: the token file could not be opened")
	}
	toks, err := sidecar.ParseTokens(f)
	f.Close()
	if err != nil {
		return err
	}
	if *spec == "" {
		if err := os.MkdirAll(*data, 0o700); err != nil {
			return errcode.Wrap(errcode.InvalidArgument, err, "--data: the directory could not be created")
		}
		*spec = filepath.Join(*data, "store.db")
	}
	st, err := storespec.Open(ctx, *spec)
	if err != nil {
		return err
	}
	defer st.Close()
	var browsers sidecar.Browsers = sidecar.Launched{ExecPath: *execPath, Logger: log}
	if len(fleet) > 0 {
		f := &sidecar.Fleet{Endpoints: fleet, Remote: *remote, Logger: log}
		if *egressListen != "" {
			if f.Egress, err = chromium.ListenEgress(*egressListen); err != nil {
				return flagged("--egress-listen", err)
			}
			defer f.Egress.Close() // after the leases' browsers
			log.Info("egress proxy", "addr", f.Egress.Addr())
		}
		browsers = f
	}
	srv, err := sidecar.New(ctx, sidecar.Options{Data: *data, Tokens: toks, Store: st, Browsers: browsers,
		MaxLeases: *maxLeases, Destinations: policy.Destinations{DenyPrivate: !*allowPrivate}, Logger: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		srv.Close(context.WithoutCancel(ctx))
		return errcode.Wrap(errcode.InvalidArgument, err, "--listen: cannot listen on %s", errcode.Quote(*listen))
	}
	scheme := "http"
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			srv.Close(context.WithoutCancel(ctx))
			ln.Close()
			return errcode.Wrap(errcode.InvalidArgument, err, "--tls-cert, --tls-key: the certificate and key could not be loaded")
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
		scheme = "https"
	}
	log.Info("serving", "url", scheme+"://"+ln.Addr().String()+"/")
	fmt.Fprintf(c.stderr, "veetbrowser: sidecar on %s://%s/\n", scheme, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		srv.Close(context.WithoutCancel(ctx))
		return err
	case <-ctx.Done():
	}
	// SIGTERM: no new requests; those in flight get a while to finish;
	// then every lease is released and every browser closed.
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("the server stopped with an error", "err", err)
	}
	// Ending the leases has its own time: the requests may have used up
	// theirs.
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	srv.Close(cctx)
	log.Info("stopped")
	return nil
}

const tokenUsageLine = "veetbrowser token TENANT"

// runToken makes a sidecar token for a tenant. It prints the token file's
// line on stdout and the token itself on stderr: only the line goes into
// the file.
func runToken(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(c.stderr)
	pos, err := parseExactly(fs, args, 1, tokenUsageLine)
	if err != nil {
		return err
	}
	token, line, err := sidecar.NewToken(pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, line)
	fmt.Fprintf(c.stderr, "token for %s (shown once; give it to the tenant as %s): %s\n", pos[0], "VEETBROWSER_TOKEN", token)
	return nil
}
