package hosted_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pages"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/projection"
	"github.com/veetbot/veetbrowser/store"
)

// TestLogsTravel: browser_console and browser_network run through the
// sidecar's routes as locally: the views the client gets are the recorded
// ones byte for byte, the read travels as the log, and no canary of the
// page (a cookie, an Authorization header, a body, a token in a query) is
// in a view or the sidecar's records.
func TestLogsTravel(t *testing.T) {
	t.Parallel()
	sc := startTabs(t)
	base := browsertest.ServeHandler(t, pages.Dashboard())
	s := sc.Open(t, "debug", veetbrowser.SessionOptions{Version: "1.10.0", Grant: policy.Grant{Origins: []string{strings.TrimSuffix(base, "/")}}})
	call(t, s, "browser_navigate", map[string]string{"url": base})
	var net projection.LogView
	var views [][]byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := call(t, s, "browser_network", map[string]any{})
		if res.Log == nil || res.DecodeView(&net) != nil {
			t.Fatalf("network: log %v, view %s", res.Log != nil, res.View)
		}
		views = append(views, res.View)
		// The sixth request is marked refused by the navigation guard a moment
		// after it is logged: read until it is, or has finished.
		if len(net.Entries) >= 6 && (net.Entries[5].Blocked || !net.Entries[5].Pending) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	con := call(t, s, "browser_console", map[string]any{"level": "error"})
	views = append(views, con.View)
	if len(net.Entries) != 6 || net.Entries[2].Status != 404 || !net.Entries[5].Blocked || len(con.Log.Entries) != 2 {
		t.Fatalf("network %s, console %s", views[len(views)-2], con.View)
	}
	sessions, err := sc.Store.Sessions(context.Background(), store.ListOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	i := 0
	err = sc.Store.Calls(context.Background(), sessions[0].ID, func(c store.Call) error {
		for _, canary := range pages.DashboardCanaries {
			if bytes.Contains(c.Arguments, []byte(canary)) || bytes.Contains(c.Observation, []byte(canary)) || bytes.Contains(c.Action, []byte(canary)) {
				t.Errorf("call %d records %s", c.Seq, canary)
			}
		}
		if c.Tool == "browser_navigate" {
			return nil
		}
		if sum := sha256.Sum256(views[i]); c.View == nil || !bytes.Equal(sum[:], c.View.SHA256) {
			t.Errorf("call %d: the view the client got is not the recorded one", c.Seq)
		}
		i++
		return nil
	})
	if err != nil || i != len(views) {
		t.Fatalf("recorded %d log calls (%v), the client made %d", i, err, len(views))
	}
	for _, v := range views {
		for _, canary := range pages.DashboardCanaries {
			if bytes.Contains(v, []byte(canary)) {
				t.Errorf("a view holds %s", canary)
			}
		}
	}
}
