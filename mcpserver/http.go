package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/tools"
)

// Defaults of the HTTP transport's limits.
const (
	// DefaultMaxSessions is how many MCP sessions one token may hold live at
	// once. Each can hold a browser page (tens of MB of renderer memory), so
	// a client that never ends its sessions is stopped well before the
	// machine is.
	DefaultMaxSessions = 32
	// DefaultIdleTimeout ends an MCP session, and closes its page, after
	// this long without a request: a client that vanished without a DELETE
	// does not keep its page forever.
	DefaultIdleTimeout = 10 * time.Minute
)

// MaxBodyBytes bounds one HTTP request's body: the largest tool arguments
// plus room for the JSON-RPC envelope. A larger body is refused (413
// too_large) before it is read whole.
const MaxBodyBytes = tools.MaxArgumentBytes + 64<<10

// DefaultBodyTimeout bounds the reading of one request's body, at most
// MaxBodyBytes: a client that sends its body a byte at a time (slow loris)
// is cut off instead of holding a connection and a handler. The headers
// are the http.Server's ReadHeaderTimeout (ReadHeaderTimeout below); a
// server-wide ReadTimeout would also cut long tool calls off, so the body
// gets its own deadline.
const DefaultBodyTimeout = 30 * time.Second

// ReadHeaderTimeout is the ReadHeaderTimeout the http.Server serving
// HTTPHandler must set (the CLI's does): a client that never finishes its
// headers is cut off after it.
const ReadHeaderTimeout = 10 * time.Second

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	Token string // bearer token every request must carry; required
	// AllowedOrigins are the browser origins (scheme://host[:port]) that
	// may call the server from a web page. A request with any other Origin
	// header, other than the server's own, is refused: a page the user
	// happens to visit must not drive their browser agent.
	AllowedOrigins []string
	MaxSessions    int           // live MCP sessions per token; 0 is DefaultMaxSessions
	IdleTimeout    time.Duration // 0 is DefaultIdleTimeout
	BodyTimeout    time.Duration // 0 is DefaultBodyTimeout
}

// HTTPHandler serves MCP over streamable HTTP behind a bearer token. Each
// MCP session gets its own browser session, closed when the MCP session
// ends: on DELETE, after IdleTimeout without a request, or when ctx ends.
// Refusals are JSON error bodies: 401 unauthorized, 403 foreign_origin,
// 413 too_large, 429 too_many_sessions, and the transport's own (400
// invalid_argument for a malformed message, 404 not_found for an unknown
// session id, …).
func HTTPHandler(ctx context.Context, rt *veetbrowser.Runtime, opts Options, h HTTPOptions) (http.Handler, error) {
	if h.Token == "" {
		return nil, errcode.New(errcode.InvalidArgument, "a bearer token is required")
	}
	if h.MaxSessions < 0 || h.IdleTimeout < 0 || h.BodyTimeout < 0 {
		return nil, errcode.New(errcode.InvalidArgument, "the session limit and the timeouts must not be negative")
	}
	if h.BodyTimeout == 0 {
		h.BodyTimeout = DefaultBodyTimeout
	}
	if h.MaxSessions == 0 {
		h.MaxSessions = DefaultMaxSessions
	}
	if h.IdleTimeout == 0 {
		h.IdleTimeout = DefaultIdleTimeout
	}
	origins, err := parseOrigins(h.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	s, err := New(rt, opts)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { s.Close(context.Background()) })

	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP },
		&mcp.StreamableHTTPOptions{SessionTimeout: h.IdleTimeout, Logger: s.log, MaxRequestBodyBytes: MaxBodyBytes})
	tokenID := tokenID(h.Token)
	// The SDK binds each session to the token that opened it, so another
	// token cannot use it.
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tokenID, Expiration: time.Now().Add(time.Hour)}, nil
	}
	limit := &sessionLimit{max: h.MaxSessions, idle: h.IdleTimeout, server: s.MCP,
		owners: make(map[string]string), pending: make(map[string]int)}
	inner := auth.RequireBearerToken(verify, nil)(sdk)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := &jsonErrors{ResponseWriter: rw}
		defer w.finish()
		if !origins.check(w, r) {
			s.log.Info("refused a cross-site request", "origin", errcode.Quote(r.Header.Get("Origin")), "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, errcode.New(errcode.ForeignOrigin, "requests from this web origin are not allowed"))
			return
		}
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent) // an allowed origin's preflight
			return
		}
		if !bearerMatches(r, h.Token) {
			s.log.Info("refused a request without a valid token", "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, http.StatusUnauthorized, errcode.New(errcode.Unauthorized, "a valid bearer token is required"))
			return
		}
		if err := readBody(w, r, h.BodyTimeout); err != nil {
			status := http.StatusRequestTimeout
			if errcode.Of(err) == errcode.TooLarge {
				status = http.StatusRequestEntityTooLarge
			}
			writeError(w, status, err)
			return
		}
		limit.serve(w, r, tokenID, inner)
	}), nil
}

// readBody reads r's body whole, within MaxBodyBytes and timeout, before
// any handler sees it.
func readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength > MaxBodyBytes {
		return errcode.New(errcode.TooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil || len(body) > MaxBodyBytes {
		// The rest of the body is not waited for: the connection closes
		// after the refusal.
		w.Header().Set("Connection", "close")
	} else {
		rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return errcode.Wrap(errcode.Timeout, err, "the request body did not arrive within %s", timeout)
	}
	if len(body) > MaxBodyBytes {
		return errcode.New(errcode.TooLarge, "the request body is larger than %d bytes", MaxBodyBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// jsonErrors turns the transport's plain-text refusals (http.Error: a
// malformed message, an unknown session id) into JSON error bodies with a
// stable code, as every other refusal of the server is.
type jsonErrors struct {
	http.ResponseWriter
	status int // a plain-text refusal being replaced; 0 if none
	done   bool
}

func (w *jsonErrors) WriteHeader(status int) {
	if status >= 400 && !w.done && w.status == 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *jsonErrors) Write(p []byte) (int, error) {
	if w.status == 0 {
		return w.ResponseWriter.Write(p)
	}
	if !w.done {
		w.done = true
		msg := strings.TrimSpace(string(p))
		w.Header().Del("X-Content-Type-Options")
		writeError(w.ResponseWriter, w.status, errcode.New(statusCode(w.status), "%s", msg))
	}
	return len(p), nil
}

// finish sends a replaced refusal that wrote no message.
func (w *jsonErrors) finish() {
	if w.status != 0 && !w.done {
		w.Write([]byte(http.StatusText(w.status)))
	}
}

func (w *jsonErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *jsonErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusCode is the code of a transport refusal with HTTP status status.
func statusCode(status int) errcode.Code {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return errcode.Unauthorized
	case http.StatusNotFound:
		return errcode.NotFound
	case http.StatusRequestEntityTooLarge:
		return errcode.TooLarge
	case http.StatusTooManyRequests:
		return errcode.TooManySessions
	}
	if status >= 500 {
		return errcode.Internal
	}
	return errcode.InvalidArgument
}

func writeError(w http.ResponseWriter, status int, err error) {
	body, _ := json.Marshal(NewErrorBody(err))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func bearerMatches(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// tokenID names a token in the session table without keeping the token.
func tokenID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}

// originPolicy decides which web pages may call the server.
type originPolicy map[string]bool

func parseOrigins(list []string) (originPolicy, error) {
	p := originPolicy{}
	for _, o := range list {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, errcode.New(errcode.InvalidArgument, "allowed origin %s is not scheme://host[:port]", errcode.Quote(o))
		}
		p[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return p, nil
}

// check reports whether r may proceed, and sets the CORS headers an allowed
// origin needs. A request without an Origin header does not come from a web
// page's script (or is same-origin navigation) and proceeds; one from the
// server's own origin proceeds; any other needs to be allowed.
func (p originPolicy) check(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		site := r.Header.Get("Sec-Fetch-Site")
		return site != "cross-site" && site != "same-site"
	}
	if !p[strings.ToLower(origin)] {
		// The server's own origin, if its host is one no DNS answer can
		// move (an IP address or localhost): a page of a name rebound to
		// this address sends its own name as Host and Origin both.
		u, err := url.Parse(origin)
		return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) && unmovable(u.Hostname())
	}
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Origin", origin)
	hdr.Add("Vary", "Origin")
	hdr.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	if r.Method == http.MethodOptions {
		hdr.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		hdr.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
		hdr.Set("Access-Control-Max-Age", "600")
	}
	return true
}

// unmovable reports whether host names the same machine whatever DNS
// answers: an IP address, or localhost (which resolvers keep to loopback).
func unmovable(host string) bool {
	return net.ParseIP(host) != nil || strings.EqualFold(host, "localhost")
}

// sessionLimit caps the live MCP sessions of each token. A session is
// counted from the request that opens it until the SDK forgets it (DELETE,
// idle timeout, the client closing its transport).
type sessionLimit struct {
	max    int
	idle   time.Duration
	server *mcp.Server

	mu      sync.Mutex
	owners  map[string]string // session id → token id
	pending map[string]int    // token id → sessions being opened
}

const sessionIDHeader = "Mcp-Session-Id"

func (l *sessionLimit) serve(w http.ResponseWriter, r *http.Request, token string, next http.Handler) {
	// Only a POST without a session id can open a session.
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
		next.ServeHTTP(w, r)
		return
	}
	// An initialize request takes its place under the limit before it is
	// served. A client may send other messages without a session id (a
	// notification of a newer protocol version) while its initialize is
	// still being answered: those are not held against the limit, but any
	// session one of them opens is counted all the same.
	reserved := initializes(r)
	if reserved {
		l.mu.Lock()
		if l.liveLocked(token)+l.pending[token] >= l.max {
			l.mu.Unlock()
			writeError(w, http.StatusTooManyRequests, errcode.New(errcode.TooManySessions,
				"this token already holds %d live sessions, the limit; end one (HTTP DELETE) or let one idle out (%s)", l.max, l.idle))
			return
		}
		l.pending[token]++
		l.mu.Unlock()
	}

	next.ServeHTTP(w, r)

	id := w.Header().Get(sessionIDHeader)
	l.mu.Lock()
	if reserved {
		l.pending[token]--
	}
	if id != "" {
		l.owners[id] = token
	}
	l.mu.Unlock()
}

// initializes reports whether r's body is an initialize request. The body
// is read within the transport's own bound and handed on unchanged.
func initializes(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// liveLocked counts the token's sessions the SDK still holds, forgetting
// the ended ones.
func (l *sessionLimit) liveLocked(token string) int {
	live := make(map[string]bool)
	for ss := range l.server.Sessions() {
		live[ss.ID()] = true
	}
	n := 0
	for id, owner := range l.owners {
		switch {
		case !live[id]:
			delete(l.owners, id)
		case owner == token:
			n++
		}
	}
	return n
}
