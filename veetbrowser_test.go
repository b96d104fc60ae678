package veetbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser/chromium"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/internal/pgtest"
	"github.com/veetbot/veetbrowser/projection"
)

var shared = browsertest.Shared[*chromium.Provider]{Launch: func() (*chromium.Provider, error) {
	return chromium.Launch(context.Background(), chromium.Options{})
}}

func TestMain(m *testing.M) { browsertest.Main(m, &shared, browsertest.Cleanup(pgtest.Stop)) }

func session(t testing.TB, opts SessionOptions) *Session {
	t.Helper()
	rt, err := New(shared.Get(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	s, err := rt.NewSession(browsertest.Context(t, time.Minute), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func view(t testing.TB, res *Result) projection.View {
	t.Helper()
	var v projection.View
	if err := json.Unmarshal(res.View, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// walk follows a page's continuations through model views only and returns
// the names seen, in order, and the number of observe calls.
func walk(t *testing.T, s *Session, url string) ([]string, int) {
	t.Helper()
	// Room for a loaded machine: 10,000 controls at 1 KiB are about 1,400
	// recorded observe calls.
	ctx := browsertest.Context(t, 10*time.Minute)
	res, err := s.Call(ctx, "browser_navigate", json.RawMessage(fmt.Sprintf(`{"url":%q}`, url)))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	calls := 1
	for {
		if len(res.View) > s.budget {
			t.Fatalf("view of %d bytes over the %d budget", len(res.View), s.budget)
		}
		v := view(t, res)
		for _, c := range v.Controls {
			seen = append(seen, c.Name)
		}
		if v.Next == nil {
			return seen, calls
		}
		args, _ := json.Marshal(v.Next) // passed back unchanged
		if res, err = s.Call(ctx, "browser_observe", args); err != nil {
			t.Fatal(err)
		}
		calls++
	}
}

func TestWalkTenThousandControlsThroughModelViews(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10,000 controls")
	}
	url := browsertest.Serve(t, browsertest.Repeat(10000, "<button>c%d</button>"))
	for _, budget := range []int{1024, 8192} {
		s := session(t, SessionOptions{Budget: budget})
		seen, calls := walk(t, s, url)
		if len(seen) != 10000 {
			t.Fatalf("budget %d: saw %d controls", budget, len(seen))
		}
		for i, n := range seen {
			if n != fmt.Sprintf("c%d", i) {
				t.Fatalf("budget %d: control %d is %q", budget, i, n)
			}
		}
		t.Logf("budget %d: 10,000 controls in %d observe calls", budget, calls)
	}
}

func TestHiddenWindowsStillAdvance(t *testing.T) {
	t.Parallel()
	url := browsertest.Serve(t, `<div hidden>`+browsertest.Repeat(9000, "<button>h%d</button>")+`</div><button>the one</button>`)
	// 1.5.0: the control stream alone; 1.6.0 reads the text along.
	seen, calls := walk(t, session(t, SessionOptions{Budget: 1024, Version: "1.5.0"}), url)
	if strings.Join(seen, ",") != "the one" || calls != 3 {
		t.Fatalf("saw %q in %d calls, want the one in 3", seen, calls)
	}
}

func TestAfterAPrefixResumesRightAfterIt(t *testing.T) {
	t.Parallel()
	s := session(t, SessionOptions{Budget: 1024, Version: "1.5.0"}) // 1.6.0's next is one cursor
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, browsertest.Repeat(100, "<button>button number %d</button>"))
	res, err := s.Navigate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	v := view(t, res)
	if len(v.Controls) >= 100 || v.Next == nil {
		t.Fatalf("1 KiB view shows %d controls, next %v", len(v.Controls), v.Next)
	}
	last := v.Controls[len(v.Controls)-1]
	if v.Next.After != last.Ref {
		t.Fatalf("next %+v is not after the last shown control %s", v.Next, last.Ref)
	}
	res, err = s.Observe(ctx, ObserveOptions{After: last.Ref})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("button number %d", len(v.Controls))
	if got := view(t, res).Controls[0].Name; got != want {
		t.Fatalf("after the prefix: %q, want %q", got, want)
	}
}
