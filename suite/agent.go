package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	veetbrowser "github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// agent is a scripted agent. It calls tools by name with JSON arguments and
// reads only the model views they return, as a model would: never the
// canonical observation, never the DOM.
type agent struct {
	s    *veetbrowser.Session
	ops  map[string]int
	view projection.View
	// calls and viewBytes count every call and the bytes of every view
	// the agent was given.
	calls, viewBytes int
}

func newAgent(s *veetbrowser.Session) *agent {
	return &agent{s: s, ops: map[string]int{}}
}

// call runs a tool and keeps the view it returns.
func (a *agent) call(ctx context.Context, tool string, args any) (projection.View, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return projection.View{}, err
	}
	a.ops[opName(tool)]++
	a.calls++
	res, err := a.s.Call(ctx, tool, raw)
	if err != nil {
		a.ops["errors"]++
		return projection.View{}, err
	}
	a.viewBytes += len(res.View)
	var v projection.View
	if err := json.Unmarshal(res.View, &v); err != nil {
		return projection.View{}, fmt.Errorf("the model view is not JSON: %w", err)
	}
	a.view = v
	return v, nil
}

func opName(tool string) string {
	switch tool {
	case tools.Navigate:
		return "navigate"
	case tools.Observe:
		return "observe"
	case tools.Act:
		return "act"
	case tools.Upload:
		return "upload"
	case tools.Find:
		return "find"
	case tools.Wait:
		return "wait"
	case tools.Tabs:
		return "tabs"
	case tools.Console:
		return "console"
	case tools.Network:
		return "network"
	}
	return tool
}

func (a *agent) navigate(ctx context.Context, url string) error {
	_, err := a.call(ctx, tools.Navigate, map[string]string{"url": url})
	return err
}

// find refreshes the page and follows continuations until a control named
// name appears; it returns its ref.
func (a *agent) find(ctx context.Context, name string) (string, error) {
	v, err := a.call(ctx, tools.Observe, struct{}{})
	for err == nil {
		for _, c := range v.Controls {
			if c.Name == name {
				return c.Ref, nil
			}
		}
		if v.Next == nil {
			return "", fmt.Errorf("no control named %q on the page", name)
		}
		v, err = a.call(ctx, tools.Observe, v.Next)
	}
	return "", err
}

// frameOrigin finds a control named name and returns the origin of the
// frame it is in, from the frame record its view shows with it; "" for the
// top document.
func (a *agent) frameOrigin(ctx context.Context, name string) (string, error) {
	ref, err := a.find(ctx, name)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(a.view.Controls, func(c projection.Control) bool { return c.Ref == ref })
	frame := a.view.Controls[i].Frame
	if frame == 0 {
		return "", nil
	}
	for _, f := range a.view.Frames {
		if f.Frame == frame {
			return f.Origin, nil
		}
	}
	return "", fmt.Errorf("the view shows %s in frame %d without its record", name, frame)
}

// read reads the page from the newest view on, following next with
// browser_observe as a model reads a long page, and returns the first whole
// text part that match accepts. A part cut at the end of one view is joined
// with its continuation at the start of the next.
func (a *agent) read(ctx context.Context, match func(part string) bool) (string, error) {
	v, err := a.whole(ctx)
	if err != nil {
		return "", err
	}
	cut := ""
	for {
		parts := slices.Clone(v.Text)
		if cut != "" {
			if v.TextContinues && len(parts) > 0 {
				parts[0] = cut + parts[0]
			} else {
				parts = append([]string{cut}, parts...)
			}
			cut = ""
		}
		if v.TextTruncated && v.Next != nil && len(parts) > 0 {
			cut, parts = parts[len(parts)-1], parts[:len(parts)-1]
		}
		for _, p := range parts {
			if match(p) {
				return p, nil
			}
		}
		if v.Next == nil {
			return "", fmt.Errorf("read the whole page without finding the text")
		}
		var err error
		if v, err = a.call(ctx, tools.Observe, v.Next); err != nil {
			return "", err
		}
	}
}

// whole is the newest view, or after a view of what changed (tool version
// 1.9.0) the page's whole view: a model that needs more than the changes
// observes again.
func (a *agent) whole(ctx context.Context) (projection.View, error) {
	if a.view.Changes == nil {
		return a.view, nil
	}
	return a.call(ctx, tools.Observe, struct{}{})
}

// shows reports whether the newest view shows a control named name: among
// its controls, or a delta's added and changed ones.
func (a *agent) shows(name string) bool {
	cs := a.view.Controls
	if d := a.view.Changes; d != nil {
		cs = append(slices.Clone(d.Added), d.Changed...)
	}
	return slices.ContainsFunc(cs, func(c projection.Control) bool { return c.Name == name })
}

// act finds a control and acts on it. When the page changed under it (a
// stale reference, a moved anchor, a control that moved under the click,
// an input the guard could only partly deliver) the agent looks again, at
// most a few times: its own decision on a fresh observation, never a
// runtime retry. The server's record still has to show exactly one effect.
func (a *agent) act(ctx context.Context, name string, args map[string]any) error {
	var err error
	for range 3 {
		var ref string
		if ref, err = a.find(ctx, name); err != nil {
			if errcode.Of(err) == errcode.StaleReference {
				continue
			}
			return err
		}
		args["ref"] = ref
		_, err = a.call(ctx, tools.Act, args)
		if c := errcode.Of(err); err == nil || (c != errcode.StaleReference && c != errcode.NotActionable && c != errcode.ActionUncertain) {
			return err
		}
	}
	return err
}

func (a *agent) click(ctx context.Context, name string) error {
	return a.act(ctx, name, map[string]any{"kind": "click"})
}

// expectCode checks that err carries code.
func expectCode(err error, code errcode.Code) error {
	if got := errcode.Of(err); err == nil || got != code {
		return fmt.Errorf("got %v, want %s", err, code)
	}
	return nil
}
