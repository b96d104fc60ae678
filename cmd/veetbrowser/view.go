package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/viewer"
)

// EnvViewToken names the variable that may hold the viewer's bearer token
// (--token-file wins).
const EnvViewToken = "VEETBROWSER_VIEW_TOKEN"

const viewUsageLine = "veetbrowser view [--store SPEC] [--listen ADDR] [--token-file FILE]"

const viewUsage = `usage: ` + viewUsageLine + `

Serves the recorded sessions of the artifact store as timelines on a local,
read-only web page (GET and HEAD only), and prints its URL: an index of the
newest sessions, and per session one entry per call (arguments as recorded,
typed text by length only; outcome; timing; the model view exactly as the
model saw it; coverage; approvals; controls added and removed).

--listen ADDR     default 127.0.0.1:0 (a free port). An address that is not
                  loopback is refused unless a token is set.
--token-file FILE a file holding the bearer token (at least 16 bytes,
                  surrounding white space ignored); else $` + EnvViewToken + `.
                  With a token, every request needs
                  Authorization: Bearer TOKEN, else 401.

flags:
`

// runView serves the artifact store's sessions as timelines until ctx
// ends.
func runView(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	withHelp(fs, c.stderr, viewUsage)
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on (loopback unless a token is set)")
	tokenFile := fs.String("token-file", "", "file holding the bearer token every request must send (default: $"+EnvViewToken+")")
	var sf storeFlags
	sf.register(fs, false)
	if _, err := parseUsage(fs, args, 0, viewUsageLine); err != nil {
		return err
	}
	token := os.Getenv(EnvViewToken)
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return errcode.Wrap(errcode.InvalidArgument, err, "--token-file: the file could not be read")
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return errcode.New(errcode.InvalidArgument, "--token-file: the file is empty")
		}
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	h, err := viewer.NewHandler(st, viewer.Options{Token: token, Images: viewer.StoreImages(st)})
	if err != nil {
		return err
	}
	ln, err := viewer.Listen(*listen, token != "")
	if err != nil {
		return flagged("--listen", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(c.stdout, "http://%s/\n", ln.Addr())
	select {
	case err := <-done:
		return errcode.Wrap(errcode.Internal, err, "the viewer stopped")
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errcode.Wrap(errcode.Internal, err, "the viewer did not stop cleanly")
	}
	return nil
}
