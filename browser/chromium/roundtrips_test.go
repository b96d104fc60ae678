package chromium

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/browser/chromium/internal/tab"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// commandCounter counts the CDP commands a browser is sent while on, how
// many of them were sent while another was waiting for its answer, and the
// rounds: the commands sent while none was waiting, each of which began a
// wait of the caller's that no other command overlapped.
type commandCounter struct {
	mu         sync.Mutex
	on         bool
	methods    map[string]int
	inflight   map[string]string // the methods of the commands sent and not answered yet, by id
	overlapped int
	rounds     int
	// beside counts the collector's calls that were in flight at the same
	// time as a listing of listeners (DOMDebugger.getEventListeners)
	beside int
}

// notObservations are commands that other parts send on their own, which
// can fall within an observation: the one chromedp sends when a document
// is replaced (DOM.documentUpdated), which a loaded machine can deliver
// late, during the observation after a navigation; and the navigation
// guard's answers to the requests the browser paused (Fetch.*), such as
// the page icon's, which the browser asks for after the load.
func notObservations(method string) bool {
	return method == "DOM.getDocument" || strings.HasPrefix(method, "Fetch.")
}

var (
	commandMethod = regexp.MustCompile(`"method":"([^"]+)"`)
	messageID     = regexp.MustCompile(`^(?:->|<-) \{"id":(\d+)`)
)

func (c *commandCounter) debugf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.mu.Lock()
	defer c.mu.Unlock()
	id := messageID.FindStringSubmatch(msg)
	if !strings.HasPrefix(msg, "-> ") {
		if id != nil {
			delete(c.inflight, id[1]) // an answer (an event has no id)
		}
		return
	}
	m := commandMethod.FindStringSubmatch(msg)
	if m != nil && notObservations(m[1]) {
		return
	}
	if c.on && m != nil {
		c.methods[m[1]]++
		if len(c.inflight) > 0 {
			c.overlapped++
		} else {
			c.rounds++
		}
		for _, other := range c.inflight {
			if (m[1] == listingMethod && other == collectorCall) || (strings.Contains(msg, collectorExpr) && other == listingMethod) {
				c.beside++
			}
		}
	}
	if id != nil && m != nil && c.inflight != nil {
		method := m[1]
		if strings.Contains(msg, collectorExpr) {
			method = collectorCall
		}
		c.inflight[id[1]] = method
	}
}

const (
	listingMethod = "DOMDebugger.getEventListeners"
	collectorExpr = "__veetbrowser.observe("
	collectorCall = "collector"
)

// count runs f with the counter on and returns the commands it sent.
func (c *commandCounter) count(f func()) map[string]int {
	c.mu.Lock()
	c.on, c.methods, c.inflight, c.overlapped, c.rounds, c.beside = true, map[string]int{}, map[string]string{}, 0, 0, 0
	c.mu.Unlock()
	f()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.methods
}

// launchCounted launches a browser whose CDP commands c counts, closed
// when t ends. Not for parallel tests: the hook is read when the browser
// launches.
func launchCounted(t *testing.T) (*Provider, *commandCounter) {
	t.Helper()
	c := &commandCounter{}
	cdpDebugf = c.debugf
	p, err := Launch(context.Background(), Options{})
	cdpDebugf = nil
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, c
}

// TestObserveRoundTrips: an observation of a page it observed before
// costs one Runtime.evaluate (the collector) in a 1.8.0 session; in a
// 1.9.0 one four more, for the listener marks: the document's listeners
// (resolve, list), its shadow roots (none here) and the release. The
// document's node is looked up once per document, not per observation.
// A frame's document (a checkout's card fields, same origin) keeps its
// marks between observations as the top document does: its listener
// marks cost three more round trips (resolve, list, release) and its
// shadow roots' query, its collector one; its document's node is not
// looked up again, nor its empty marks set again. The marks' round trips
// overlap: the document's listing with the shadow roots' query (its node
// resolved ahead, in the last observation), the release of the last
// marking's objects and the next resolution, and the collector's call of
// an observation asked for again (Observe), the page's and the frame's. In
// 1.9.0, of five observations of the page without a frame at least one
// waits for one round only, where two is the least without the collector's
// call beside the marking; of the checkout's, two (the page's round, then
// the frame's), where three is the least without the frame's call beside
// its marking.
// Not parallel: the hook is read when the browser launches.
func TestObserveRoundTrips(t *testing.T) {
	p, c := launchCounted(t)
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, `<!doctype html><title>Inbox</title><nav><a href="/a">All mail</a></nav>
<main><h1>Inbox</h1><div class="row" onclick="open(1)">Your order shipped</div><button>Compose</button></main>`)
	checkout := browsertest.ServePages(t, map[string]string{
		"/": `<!doctype html><title>Checkout</title><main><h1>Payment</h1><form aria-label="Billing" onsubmit="event.preventDefault()">
<label>Name on card <input name="name"></label><iframe src="/card" title="Card details" style="width:420px;height:160px;border:0"></iframe>
<button>Pay €42.00</button></form></main>`,
		"/card": `<!doctype html><title>Card</title><form><label>Card number <input name="number" inputmode="numeric"></label>
<label>Expiry <input name="exp" placeholder="MM/YY"></label><label>CVC <input name="cvc"></label></form>`,
	})
	for _, tc := range []struct {
		real bool
		url  string
		want map[string]int
	}{
		{false, url, map[string]int{"Runtime.evaluate": 1}},
		{true, url, map[string]int{"Runtime.evaluate": 2, "DOM.resolveNode": 1, "DOMDebugger.getEventListeners": 1, "Runtime.releaseObjectGroup": 1}},
		{true, checkout, map[string]int{"Runtime.evaluate": 4, "DOM.resolveNode": 2, "DOMDebugger.getEventListeners": 2, "Runtime.releaseObjectGroup": 2}},
	} {
		bs, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: tc.real})
		if err != nil {
			t.Fatal(err)
		}
		s := bs.(*Session)
		if _, err := s.Navigate(ctx, tc.url); err != nil {
			t.Fatal(err)
		}
		got := c.count(func() {
			if _, err := s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			}
		})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("real pages %v, %s: an observation sent %v, want %v", tc.real, tc.url, got, tc.want)
		}
		overlapped, fewest := 0, 0
		for i := range 5 {
			c.count(func() {
				if _, err := s.Observe(ctx, observation.Request{}); err != nil {
					t.Fatal(err)
				}
			})
			c.mu.Lock()
			overlapped += c.overlapped
			if i == 0 || c.rounds < fewest {
				fewest = c.rounds
			}
			c.mu.Unlock()
		}
		if tc.real && overlapped == 0 {
			t.Errorf("real pages %v, %s: %d commands of five observations were sent while another was unanswered", tc.real, tc.url, overlapped)
		}
		if tc.real && tc.url == url && fewest > 1 {
			t.Errorf("real pages, %s: the fewest rounds of five observations were %d, want 1", tc.url, fewest)
		}
		if tc.real && tc.url == checkout && fewest > 2 {
			// The page's round, then the frame's: its collector's call
			// goes beside its marking, as the page's does.
			t.Errorf("real pages, %s: the fewest rounds of five observations were %d, want 2", tc.url, fewest)
		}
		if tc.real && tc.url == url {
			// A new document's first marking, as far as its caller waits
			// for it: its node is found and listed (evaluate, describe,
			// resolve, list) beside the shadow roots' query, then the row is
			// marked (resolve, mark): 6 rounds, or 5 when the shadow roots'
			// query is still unanswered as the description goes out (which
			// the renderer's load decides; 6 in 2 of 3 runs after other
			// tests). The releases and the next resolution it sends after
			// its end run beside the caller's next command (Released);
			// goroutines sent at once, they were sometimes a round of their
			// own on a loaded machine, which made the count with them flaky
			// (7 in a full run of the build before).
			fewest = 0
			for i := range 5 {
				if _, err := s.tab.Navigate(ctx, tc.url); err != nil {
					t.Fatal(err)
				}
				var m tab.Marking
				c.count(func() {
					if m, err = s.tab.MarkListeners(ctx, observation.WindowSize, true); err != nil {
						t.Fatal(err)
					}
				})
				m.Released()
				c.mu.Lock()
				if i == 0 || c.rounds < fewest {
					fewest = c.rounds
				}
				c.mu.Unlock()
			}
			if fewest > 6 {
				t.Errorf("real pages, %s: the fewest rounds of five first markings were %d, want at most 6", tc.url, fewest)
			}
		}
		s.Close(ctx)
	}
}

// TestLeftFramesAreForgotten: the frames of a document the tab has left
// are forgotten with it, whether they ran in the page's process or out of
// it, nested or not. An observation of a plain page sends the same
// commands after the tab visited pages with frames three times as after
// it visited only the plain page: none for a frame that is gone (the
// registry kept every cross-site frame ever loaded, and each observation
// looked for its element again, one round trip each).
// Not parallel: the hook is read when the browser launches.
func TestLeftFramesAreForgotten(t *testing.T) {
	p, c := launchCounted(t)
	ctx := browsertest.Context(t, time.Minute)
	other := otherOrigin(t, map[string]string{
		"/card":   `<!doctype html><title>Card</title><label>Card number <input name="number"></label><iframe src="/inner" style="width:200px;height:60px"></iframe>`,
		"/inner":  `<!doctype html><button>Verify</button>`,
		"/banner": `<!doctype html><a href="/offer">Offer</a>`,
	})
	pages := browsertest.ServePages(t, map[string]string{
		"/checkout": `<!doctype html><title>Checkout</title><h1>Payment</h1><iframe src="` + other + `card" style="width:420px;height:160px"></iframe>
<iframe src="` + other + `banner" style="width:300px;height:60px"></iframe><iframe srcdoc="<button>Apply code</button>"></iframe><button>Pay</button>`,
		"/plain": `<!doctype html><title>Plain</title><main><h1>Done</h1><p>Thank you.</p><button>Back</button></main>`,
	})
	bs, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close(ctx)
	s := bs.(*Session)
	observePlain := func() map[string]int {
		t.Helper()
		if _, err := s.Navigate(ctx, pages+"plain"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Observe(ctx, observation.Request{}); err != nil { // the document's first marking
			t.Fatal(err)
		}
		return c.count(func() {
			if _, err := s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	want := fmt.Sprint(observePlain())
	for i := range 3 {
		if _, err := s.Navigate(ctx, pages+"checkout"); err != nil {
			t.Fatal(err)
		}
		// Until every frame is collected: each cross-site one has been
		// attached and named.
		for try := 0; ; try++ {
			obs, err := s.Observe(ctx, observation.Request{})
			if err != nil {
				t.Fatal(err)
			}
			collected := 0
			for _, f := range obs.Frames {
				if f.Status == observation.FrameCollected {
					collected++
				}
			}
			if collected == 4 {
				break
			}
			if try == 100 {
				t.Fatalf("visit %d: frames %+v, want four collected", i, obs.Frames)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := fmt.Sprint(observePlain()); got != want {
			t.Errorf("after %d visits to a page with frames, an observation of a plain page sent %s, want %s", i+1, got, want)
		}
	}
}

// TestObserveAheadOfTheMarks: an observation asked for again sends the
// collector's call beside the listener marking, so that the call is in
// flight with the document's listing; its answer stands only when the
// marking changed no mark. An element that gains a click listener between
// two observations is listed by the second, and one that loses its
// listener no longer is: the collector is called again after such a
// marking (three evaluates: the shadow roots' query, the call ahead, the
// call again), and once only after one that changed nothing. An action's
// view, whose page has just changed, sends no call ahead.
// Not parallel: the hook is read when the browser launches.
func TestObserveAheadOfTheMarks(t *testing.T) {
	p, c := launchCounted(t)
	ctx := browsertest.Context(t, time.Minute)
	url := browsertest.Serve(t, `<!doctype html><title>Tasks</title><main><h1>Tasks</h1>
<div id="archive">Archive</div><div id="billing">Billing</div><button id="add">New task</button><ul id="list"></ul></main>
<script>
  window.openBilling = () => {};
  document.getElementById('billing').addEventListener('click', openBilling);
  document.getElementById('add').addEventListener('click', () => {
    const li = document.createElement('li');
    li.textContent = 'Task ' + (document.querySelectorAll('#list li').length + 1);
    li.addEventListener('click', () => {});
    document.getElementById('list').append(li);
  });
</script>`)
	bs, err := p.NewSession(ctx, browser.SessionOptions{Reading: true, Interactions: true, RealPages: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close(ctx)
	s := bs.(*Session)
	if _, err := s.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	observe := func(step string, want ...string) (evaluates, beside int, obs *observation.Observation) {
		t.Helper()
		got := c.count(func() {
			if obs, err = s.Observe(ctx, observation.Request{}); err != nil {
				t.Fatal(err)
			}
		})
		if names := roleNames(obs); !slices.Equal(names, want) {
			t.Fatalf("%s: controls %q, want %q", step, names, want)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return got["Runtime.evaluate"], c.beside, obs
	}
	evaluates, beside, _ := observe("unchanged", "generic Billing", "button New task")
	if evaluates != 2 || beside == 0 {
		t.Fatalf("unchanged: %d evaluates, the collector beside the listing %d times; want 2, and beside", evaluates, beside)
	}
	evalMain(t, s, `document.getElementById('archive').addEventListener('click', () => {})`)
	if evaluates, _, _ := observe("gained a listener", "generic Archive", "generic Billing", "button New task"); evaluates != 3 {
		t.Fatalf("gained a listener: %d evaluates, want 3 (the collector called again)", evaluates)
	}
	evalMain(t, s, `document.getElementById('billing').removeEventListener('click', openBilling)`)
	if evaluates, _, _ := observe("lost a listener", "generic Archive", "button New task"); evaluates != 3 {
		t.Fatalf("lost a listener: %d evaluates, want 3 (the collector called again)", evaluates)
	}
	_, _, obs := observe("unchanged again", "generic Archive", "button New task")
	var act *browser.ActResult
	got := c.count(func() {
		if act, err = s.Act(ctx, browser.Action{Kind: browser.ActClick, Ref: obs.Controls[1].Ref}, allowAll); err != nil {
			t.Fatal(err)
		}
	})
	c.mu.Lock()
	beside = c.beside
	c.mu.Unlock()
	if names := roleNames(act.Observation); !slices.Equal(names, []string{"generic Archive", "button New task", "generic Task 1"}) || beside != 0 {
		t.Fatalf("the click's view: controls %q, the collector beside the listing %d times (%v); want the new task, and none beside", names, beside, got)
	}
}
