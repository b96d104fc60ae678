// Package mcpserver adapts the runtime to the Model Context Protocol: one MCP
// session is one browser session, pinned to one tool version, that lives
// exactly as long as the MCP session. Tool results are the model view as
// text; failures are tool errors carrying the stable code and public
// message, and their internal causes go to the log.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/controlroom"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/tools"
)

// Options configure the servers.
type Options struct {
	Version       string // tool version the sessions are pinned to; "" is the newest
	Budget        int    // inline byte budget; 0 takes the runtime's
	ServerVersion string // reported implementation version
	Grant         policy.Grant
	Destinations  policy.Destinations // link-local, metadata (and private) destinations refused on every hop
	UploadRoot    string              // "" refuses uploads
	DownloadDir   string              // where downloads land (1.10.0); "" gives each session a temp dir
	// Logger records the internal causes of failures (the public code and
	// message go to the client); nil discards them.
	Logger *slog.Logger
	// Open, when set, opens each MCP session's browser session instead of
	// the runtime: a sidecar's hosted session (package hosted), with the
	// same options and the same eliciting approver.
	Open func(ctx context.Context, opts veetbrowser.SessionOptions) (veetbrowser.Caller, error)
	// Room, when set, shows every MCP session's page in the control room
	// and asks a person there for approvals a client cannot ask its user
	// for (no elicitation).
	Room *controlroom.Room
}

// requestKey carries the tool call's request, so the approver can reach the
// client that made it.
type requestKey struct{}

// elicitingApprover asks the user through the MCP client, when the client
// supports elicitation, else the next approver (the control room) if there
// is one. The user sees the control's facts as the page states them, never
// the model's description.
type elicitingApprover struct {
	next policy.Approver // nil: none
}

func (e elicitingApprover) Approve(ctx context.Context, f policy.Facts) (bool, error) {
	ok, _, err := e.ApproveFrom(ctx, f)
	return ok, err
}

func (e elicitingApprover) ApproveFrom(ctx context.Context, f policy.Facts) (bool, string, error) {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	canAsk := req != nil && req.Session != nil
	if canAsk {
		caps := req.Session.InitializeParams().Capabilities
		canAsk = caps != nil && caps.Elicitation != nil
	}
	switch {
	case !canAsk && e.next != nil:
		return policy.Ask(ctx, e.next, f)
	case req == nil || req.Session == nil:
		return false, "", errcode.New(errcode.ApprovalRequired, "no client to ask")
	case !canAsk:
		return false, "", errcode.New(errcode.ApprovalRequired, "the client cannot ask the user")
	}
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Message:         "Allow the browser agent to act on " + f.String() + "?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","description":"allow this one action"}},"required":["approve"]}`),
	})
	if err != nil {
		return false, "", err
	}
	approve, _ := res.Content["approve"].(bool)
	return res.Action == "accept" && approve, policy.SourceApprover, nil
}

// Server is one MCP server. Each MCP session connected to it gets its own
// browser session, opened on its first tool call and closed as soon as the
// MCP session ends (the client leaves, an HTTP DELETE, an idle timeout).
type Server struct {
	// fixed at creation
	MCP     *mcp.Server
	rt      *veetbrowser.Runtime
	opts    Options
	version tools.Version
	log     *slog.Logger

	mu     sync.Mutex
	pages  map[*mcp.ServerSession]*page // browser sessions of live MCP sessions
	opened int                          // MCP sessions seen, for the control room's labels
	closed bool
}

// page is the browser session of one MCP session.
type page struct {
	mu    sync.Mutex         // held while the browser session opens
	sess  veetbrowser.Caller // nil until the first tool call
	ended bool               // the MCP session ended: nothing may open
	room  *controlroom.Page  // nil without a control room
}

// New returns an MCP server whose tools drive one browser session per MCP
// session.
func New(rt *veetbrowser.Runtime, opts Options) (*Server, error) {
	v, err := tools.Lookup(opts.Version)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{rt: rt, opts: opts, version: v, log: log, pages: make(map[*mcp.ServerSession]*page)}
	s.MCP = mcp.NewServer(&mcp.Implementation{Name: "veetbrowser", Version: opts.ServerVersion}, nil)
	s.MCP.AddReceivingMiddleware(refuseUnknownTools(v))
	for _, t := range tools.Tools(v) {
		s.MCP.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    t.ReadOnly,
				DestructiveHint: &t.Destructive,
				OpenWorldHint:   ptr(true),
			},
		}, s.handler(t.Name))
	}
	if v.Downloads {
		s.addDownloads()
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// refuseUnknownTools answers a call of a tool version v does not have
// itself: the SDK's own answer would quote the whole name back, however
// long.
func refuseUnknownTools(v tools.Version) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && !v.Has(call.Params.Name) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool " + errcode.Quote(call.Params.Name)}
			}
			return next(ctx, method, req)
		}
	}
}

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sess, err := s.browserSession(ctx, req.Session)
		if err != nil {
			return s.toolError(ctx, name, err), nil
		}
		res, err := sess.Call(context.WithValue(ctx, requestKey{}, req), name, req.Params.Arguments)
		if err != nil {
			return s.toolError(ctx, name, err), nil
		}
		if rp := s.roomPage(req.Session); rp != nil {
			rp.SetView(res.View)
		}
		content := []mcp.Content{&mcp.TextContent{Text: string(res.View)}}
		if res.Image != nil {
			content = append(content, &mcp.ImageContent{Data: res.Image.Data, MIMEType: res.Image.MediaType})
		}
		if local, ok := sess.(*veetbrowser.Session); ok && local.Version().Downloads {
			// (a hosted session's files are on the sidecar: no link)
			content = append(content, downloadLinks(res.View)...)
		}
		return &mcp.CallToolResult{Content: content}, nil
	}
}

// browserSession returns the browser session of ss, opening it on first
// use; a watcher closes it when ss ends.
func (s *Server) browserSession(ctx context.Context, ss *mcp.ServerSession) (veetbrowser.Caller, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errcode.New(errcode.BrowserUnavailable, "the server is closed")
	}
	p := s.pages[ss]
	if p == nil {
		p = &page{}
		s.opened++
		if s.opts.Room != nil {
			p.room = s.opts.Room.Add(fmt.Sprintf("MCP session %d", s.opened))
		}
		s.pages[ss] = p
		if ss != nil {
			go func() {
				ss.Wait()
				s.release(ss, p)
			}()
		}
	}
	s.mu.Unlock()

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return nil, errcode.New(errcode.BrowserUnavailable, "the session has ended")
	}
	if p.sess == nil {
		approver := elicitingApprover{}
		if p.room != nil {
			approver.next = p.room
		}
		opts := veetbrowser.SessionOptions{Version: s.version.Name, Budget: s.opts.Budget,
			Grant: s.opts.Grant, Destinations: s.opts.Destinations, UploadRoot: s.opts.UploadRoot, DownloadDir: s.opts.DownloadDir, Approver: approver,
			Surface: "mcp"}
		if p.room != nil {
			opts.Handoff = p.room
		}
		open := s.opts.Open
		if open == nil {
			open = func(ctx context.Context, o veetbrowser.SessionOptions) (veetbrowser.Caller, error) {
				return s.rt.NewSession(ctx, o)
			}
		}
		sess, err := open(ctx, opts)
		if err != nil {
			return nil, err
		}
		p.sess = sess
		if live, ok := sess.(controlroom.Live); ok && p.room != nil {
			p.room.SetLive(live)
		}
	}
	return p.sess, nil
}

// roomPage is the control room's page of ss; nil without a room.
func (s *Server) roomPage(ss *mcp.ServerSession) *controlroom.Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[ss]; p != nil {
		return p.room
	}
	return nil
}

// release closes the browser session of an MCP session that ended. It
// waits for a page that is still opening, so none is left behind.
func (s *Server) release(ss *mcp.ServerSession, p *page) {
	s.mu.Lock()
	if s.pages[ss] == p {
		delete(s.pages, ss)
	}
	s.mu.Unlock()
	if p.room != nil {
		p.room.Remove()
	}
	p.mu.Lock()
	sess := p.sess
	p.sess, p.ended = nil, true
	p.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := sess.Close(ctx); err != nil {
		errcode.Log(ctx, s.log, "closing a browser session", err)
	}
}

// closeTimeout bounds closing one browser session.
const closeTimeout = 10 * time.Second

// Close ends every MCP session and closes every browser session; tool calls
// after it are refused.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	pages := make(map[*mcp.ServerSession]*page, len(s.pages))
	for ss, p := range s.pages {
		pages[ss] = p
	}
	s.mu.Unlock()
	for ss := range s.MCP.Sessions() {
		ss.Close()
	}
	for ss, p := range pages {
		s.release(ss, p)
	}
	return nil
}

// ErrorBody is the JSON every surface returns for a failure.
type ErrorBody struct {
	Error struct {
		Code    errcode.Code `json:"code"`
		Message string       `json:"message"`
	} `json:"error"`
}

// NewErrorBody returns the public form of err.
func NewErrorBody(err error) ErrorBody {
	var b ErrorBody
	b.Error.Code, b.Error.Message = errcode.Public(err)
	return b
}

// toolError logs err with its internal cause and returns its public form,
// which is bounded (errcode bounds every message).
func (s *Server) toolError(ctx context.Context, tool string, err error) *mcp.CallToolResult {
	errcode.Log(ctx, s.log, "tool call failed", err, "tool", tool)
	body, _ := json.Marshal(NewErrorBody(err))
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}

// RunStdio serves one MCP session over stdin and stdout until it ends.
func RunStdio(ctx context.Context, rt *veetbrowser.Runtime, opts Options) error {
	s, err := New(rt, opts)
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	return s.MCP.Run(ctx, &mcp.StdioTransport{})
}
