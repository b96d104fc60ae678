package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/tools"
)

// Scenarios of debugging a web app (tool version 1.10.0, docs/debugging.md):
// the page only says that something went wrong; the failing request's
// status and the console's error say what.

// signupError is what the sign-up API answers a name with capitals: the
// page logs it to the console, never shows it.
const signupError = "username must use lowercase letters only"

func debuggingScenarios() []scenario {
	return []scenario{{
		// A sign-up form whose submit fails: the agent reads the failing
		// request's status and the console error, fixes the field, submits
		// again, and reports the error text through the page's feedback
		// form.
		id: "debug-failing-submit",
		pages: map[string]func() string{"": static(`<title>Join · Acme</title><link rel="icon" href="data:,">
<header><nav aria-label="Site"><a href="#">Product</a> · <a href="#">Pricing</a></nav></header>
<main><h1>Create your account</h1>
<section aria-label="Sign up"><label>Username <input id="user" autocomplete="off"></label>
<button type="button" id="join">Create account</button><p id="state" role="status"></p></section>
<section aria-label="Feedback"><label>Problem report <input id="report"></label>
<button type="button" id="send">Send report</button></section></main>
<footer>© Acme</footer>
<script>
document.getElementById('join').addEventListener('click', async () => {
  const r = await fetch('signup', {method: 'POST', body: document.getElementById('user').value});
  if (!r.ok) {
    const body = await r.json();
    console.error('Signup failed: ' + body.error);
    document.getElementById('state').textContent = 'Something went wrong. Please try again.';
    return;
  }
  document.getElementById('state').textContent = 'Welcome aboard';
});
document.getElementById('send').addEventListener('click', () => {
  fetch('report', {method: 'POST', body: document.getElementById('report').value});
});
</script>`)},
		handlers: map[string]handler{
			"signup": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				b, _ := io.ReadAll(io.LimitReader(r.Body, 256))
				if name := string(b); name != strings.ToLower(name) {
					record("signup:refused")
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnprocessableEntity)
					json.NewEncoder(w).Encode(map[string]string{"error": signupError})
					return
				}
				record("signup:" + string(b))
			},
			"report": func(w http.ResponseWriter, r *http.Request, record func(string)) {
				b, _ := io.ReadAll(io.LimitReader(r.Body, 1024))
				record("report:" + string(b))
			},
		},
		expected: []string{"signup:refused", "signup:ada", "report:" + signupError},
		approve:  []string{"Send report"}, // sending is consequential
		run: func(ctx context.Context, a *agent, _ string) error {
			if err := a.act(ctx, "Username", map[string]any{"kind": "type", "text": "Ada"}); err != nil {
				return err
			}
			if err := a.click(ctx, "Create account"); err != nil {
				return err
			}
			failed, err := a.failedRequest(ctx, "signup")
			if err != nil {
				return err
			}
			if failed.Status != http.StatusUnprocessableEntity {
				return fmt.Errorf("the sign-up request's status is %d", failed.Status)
			}
			text, err := a.consoleError(ctx, "Signup failed: ")
			if err != nil {
				return err
			}
			if err := a.act(ctx, "Username", map[string]any{"kind": "press", "key": "Control+A"}); err != nil {
				return err
			}
			if err := a.act(ctx, "Username", map[string]any{"kind": "type", "text": "ada"}); err != nil {
				return err
			}
			if err := a.click(ctx, "Create account"); err != nil {
				return err
			}
			if err := a.act(ctx, "Problem report", map[string]any{"kind": "type", "text": text}); err != nil {
				return err
			}
			return a.click(ctx, "Send report")
		},
	}}
}

// logView calls browser_console or browser_network with args and returns
// its view; the agent's observation view stays as it was.
func (a *agent) logView(ctx context.Context, tool string, args any) (projection.LogView, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return projection.LogView{}, err
	}
	a.ops[opName(tool)]++
	res, err := a.s.Call(ctx, tool, raw)
	if err != nil {
		a.ops["errors"]++
		return projection.LogView{}, err
	}
	var v projection.LogView
	return v, json.Unmarshal(res.View, &v)
}

// failedRequest reads the network log (filtered by path), following next,
// until a finished request with an error status, and returns it.
func (a *agent) failedRequest(ctx context.Context, path string) (e struct{ Status int }, err error) {
	args := map[string]any{"filter": path}
	for range 20 {
		v, err := a.logView(ctx, tools.Network, args)
		if err != nil {
			return e, err
		}
		for _, r := range v.Entries {
			if r.Status >= 400 {
				e.Status = r.Status
				return e, nil
			}
		}
		if v.Next != nil {
			args = map[string]any{"filter": path, "cursor": v.Next.Cursor}
		}
	}
	return e, fmt.Errorf("no failed %s request in the network log", path)
}

// consoleError returns the text after prefix of the first console error
// that starts with it.
func (a *agent) consoleError(ctx context.Context, prefix string) (string, error) {
	for range 20 {
		v, err := a.logView(ctx, tools.Console, map[string]any{"level": "error"})
		if err != nil {
			return "", err
		}
		for _, m := range v.Entries {
			if rest, ok := strings.CutPrefix(m.Text, prefix); ok {
				return rest, nil
			}
		}
	}
	return "", fmt.Errorf("no console error starts with %q", prefix)
}
