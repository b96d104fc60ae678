// Package mcpserver adapts the runtime to the Model Context Protocol: one MCP
// session is one browser session, pinned to one tool version. Tool results
// are the model view as text; failures are tool errors carrying the stable
// code and public message.
package mcpserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	veetbrowser "github.com/veetbot/veetbrowser"
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
	UploadRoot    string // "" refuses uploads
}

// requestKey carries the tool call's request, so the approver can reach the
// client that made it.
type requestKey struct{}

// elicitingApprover asks the user through the MCP client, when the client
// supports elicitation. The user sees the control's facts as the page
// states them, never the model's description.
type elicitingApprover struct{}

func (elicitingApprover) Approve(ctx context.Context, f policy.Facts) (bool, error) {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	if req == nil || req.Session == nil {
		return false, errcode.New(errcode.ApprovalRequired, "no client to ask")
	}
	if caps := req.Session.InitializeParams().Capabilities; caps == nil || caps.Elicitation == nil {
		return false, errcode.New(errcode.ApprovalRequired, "the client cannot ask the user")
	}
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Message:         "Allow the browser agent to act on " + f.String() + "?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","description":"allow this one action"}},"required":["approve"]}`),
	})
	if err != nil {
		return false, err
	}
	approve, _ := res.Content["approve"].(bool)
	return res.Action == "accept" && approve, nil
}

// Server is one MCP server with its lazily opened browser session.
type Server struct {
	// fixed at creation
	MCP     *mcp.Server
	rt      *veetbrowser.Runtime
	opts    Options
	version tools.Version

	mu      sync.Mutex
	session *veetbrowser.Session // nil until the first tool call
	closed  bool
}

// New returns an MCP server whose tools drive one browser session.
func New(rt *veetbrowser.Runtime, opts Options) (*Server, error) {
	v, err := tools.Lookup(opts.Version)
	if err != nil {
		return nil, err
	}
	s := &Server{rt: rt, opts: opts, version: v}
	s.MCP = mcp.NewServer(&mcp.Implementation{Name: "veetbrowser", Version: opts.ServerVersion}, nil)
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
	return s, nil
}

func ptr[T any](v T) *T { return &v }

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sess, err := s.browserSession(ctx)
		if err != nil {
			return toolError(err), nil
		}
		res, err := sess.Call(context.WithValue(ctx, requestKey{}, req), name, req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res.View)}}}, nil
	}
}

func (s *Server) browserSession(ctx context.Context) (*veetbrowser.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errcode.New(errcode.BrowserUnavailable, "the session is closed")
	}
	if s.session == nil {
		sess, err := s.rt.NewSession(ctx, veetbrowser.SessionOptions{Version: s.version.Name, Budget: s.opts.Budget,
			Grant: s.opts.Grant, UploadRoot: s.opts.UploadRoot, Approver: elicitingApprover{}})
		if err != nil {
			return nil, err
		}
		s.session = sess
	}
	return s.session, nil
}

// Close closes the browser session, if one was opened.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	sess := s.session
	s.session, s.closed = nil, true
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	return sess.Close(ctx)
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

func toolError(err error) *mcp.CallToolResult {
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

// HTTPHandler serves MCP over streamable HTTP behind a bearer token. Each
// MCP session gets its own server and browser session; a janitor closes the
// browser sessions of MCP sessions that ended.
func HTTPHandler(ctx context.Context, rt *veetbrowser.Runtime, opts Options, token string) (http.Handler, error) {
	if _, err := tools.Lookup(opts.Version); err != nil {
		return nil, err
	}
	if token == "" {
		return nil, errcode.New(errcode.InvalidArgument, "a bearer token is required")
	}
	var mu sync.Mutex
	var servers []*Server
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s, err := New(rt, opts)
		if err != nil {
			return nil
		}
		mu.Lock()
		servers = append(servers, s)
		mu.Unlock()
		return s.MCP
	}, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	go func() {
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				mu.Lock()
				for _, s := range servers {
					s.Close(context.Background())
				}
				mu.Unlock()
				return
			case <-tick.C:
			}
			mu.Lock()
			live := servers[:0]
			for _, s := range servers {
				if hasSessions(s.MCP) {
					live = append(live, s)
				} else {
					s.Close(context.Background())
				}
			}
			servers = live
			mu.Unlock()
		}
	}()
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if !constantTimeEqual(got, token) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	return auth.RequireBearerToken(verify, nil)(handler), nil
}

func hasSessions(s *mcp.Server) bool {
	for range s.Sessions() {
		return true
	}
	return false
}

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
