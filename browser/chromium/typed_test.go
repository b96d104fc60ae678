package chromium

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// booking is a hotel booking form whose own script keeps what each field
// holds on its input and change events, as a page that validates does.
const booking = `<title>Book a room · Seaside Inn</title>
<style>body{font:14px sans-serif} .row{margin:8px 0} label{display:inline-block;width:140px}</style>
<h1>Book a room</h1>
<form id="book" onsubmit="return false">
  <div class="row"><label for="in">Check-in date</label><input id="in" type="date" name="checkin" required></div>
  <div class="row"><label for="at">Arrival time</label><input id="at" type="time" name="arrival"></div>
  <div class="row"><label for="card">Card expiry</label><input id="card" type="month" name="expiry"></div>
  <div class="row"><label for="wk">Cleaning week</label><input id="wk" type="week" name="week"></div>
  <div class="row"><label for="call">Call me at</label><input id="call" type="datetime-local" name="call"></div>
  <div class="row"><label for="guests">Guests</label><input id="guests" type="number" min="1" max="8" value="2"></div>
  <div class="row"><label for="floor">Floor preference</label><input id="floor" type="range" min="0" max="40" step="5" value="20"></div>
  <div class="row"><label for="tint">Room colour</label><input id="tint" type="color" value="#336699"></div>
  <button>Book</button>
</form>
<script>
  window.seen = {};
  window.keys = 0;
  document.addEventListener('keydown', () => window.keys++, true);
  for (const el of document.querySelectorAll('input')) {
    for (const type of ['input', 'change']) el.addEventListener(type, () => { window.seen[el.id] = el.value; });
  }
</script>`

// TestTypedInputsTakeTheISOValue: in a 1.9.0 session, type reaches each
// typed kind's value with trusted keys, as the page's own change handlers
// see it; before 1.9.0 the date field stayed empty while type succeeded.
func TestTypedInputsTakeTheISOValue(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openRealPages(t, booking, true)
	for _, c := range []struct{ name, id, text, want string }{
		{"Check-in date", "in", "2012-09-10", "2012-09-10"},
		{"Arrival time", "at", "14:05", "14:05"},
		{"Arrival time", "at", "00:30", "00:30"}, // midnight: hour 12 and the morning on a 12-hour clock
		{"Card expiry", "card", "2027-03", "2027-03"},
		{"Cleaning week", "wk", "2012-W37", "2012-W37"},
		{"Call me at", "call", "2012-09-10T14:05", "2012-09-10T14:05"},
		{"Guests", "guests", "4", "4"},
		{"Floor preference", "floor", "35", "35"},
		{"Floor preference", "floor", "5", "5"},
		{"Check-in date", "in", "1999-12-31", "1999-12-31"}, // over a value already there
		{"Room colour", "tint", "#FF8800", "#ff8800"},       // as its picker sets it, in lower case
	} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, c.name).Ref, Text: c.text}, allowAll)
		if err != nil {
			t.Fatalf("typing %q into %s: %v", c.text, c.name, err)
		}
		obs = res.Observation
		if got := evalMain(t, s, `document.getElementById('`+c.id+`').value`); got != c.want {
			t.Fatalf("%s holds %q after typing %q, want %q", c.name, got, c.text, c.want)
		}
		if got := evalMain(t, s, `window.seen['`+c.id+`'] || ''`); got != c.want {
			t.Fatalf("the page's change handler saw %q in %s, want %q", got, c.name, c.want)
		}
	}
}

// TestTypedBeforeRealPagesIsUnchanged pins the older versions: type on a
// date input still reports success and leaves it empty, and a cut text
// still succeeds.
func TestTypedBeforeRealPagesIsUnchanged(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openRealPages(t, booking+`<input aria-label="Code" maxlength="3">`, false)
	for _, c := range []struct{ name, text string }{{"Check-in date", "2012-09-10"}, {"Room colour", "nonsense"}, {"Code", "ABCDEF"}} {
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, c.name).Ref, Text: c.text}, allowAll)
		if err != nil {
			t.Fatalf("typing into %s before 1.9.0: %v", c.name, err)
		}
		obs = res.Observation
	}
	if got := evalMain(t, s, `document.getElementById('in').value`); got != "" {
		t.Fatalf("before 1.9.0 the date field holds %q", got)
	}
}

// TestTypedTextIsCheckedBeforeDispatch: malformed text for a typed kind is
// invalid_argument with no key reaching the page (a color that is not
// #rrggbb included), and a range value off its steps is not_actionable,
// the fields untouched.
func TestTypedTextIsCheckedBeforeDispatch(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openRealPages(t, booking, true)
	for _, c := range []struct {
		name, text string
		code       errcode.Code
	}{
		{"Check-in date", "10/09/2012", errcode.InvalidArgument},
		{"Check-in date", "2012-02-30", errcode.InvalidArgument},
		{"Arrival time", "2pm", errcode.InvalidArgument},
		{"Card expiry", "2027-13", errcode.InvalidArgument},
		{"Cleaning week", "2012-W53", errcode.InvalidArgument}, // 2012 has 52 ISO weeks
		{"Call me at", "2012-09-10 14:05", errcode.InvalidArgument},
		{"Guests", "four", errcode.InvalidArgument},
		{"Room colour", "#f80", errcode.InvalidArgument},
		{"Room colour", "ff8800", errcode.InvalidArgument},
		{"Room colour", "#ff880g", errcode.InvalidArgument},
		{"Room colour", "orange", errcode.InvalidArgument},
		{"Room colour", "#ff8800 ", errcode.InvalidArgument},
	} {
		_, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, c.name).Ref, Text: c.text}, allowAll)
		wantCode(t, err, c.code)
	}
	if got := evalMain(t, s, `String(window.keys) + ' ' + document.getElementById('in').value + ' ' + document.getElementById('tint').value`); got != "0  #336699" {
		t.Fatalf("refused text reached the page: keys, date and color are %q", got)
	}
	_, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Floor preference").Ref, Text: "12"}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "no step") {
		t.Fatalf("off-step range refusal says %q", err)
	}
	if got := evalMain(t, s, `document.getElementById('floor').value`); got != "20" {
		t.Fatalf("the refused range moved to %q", got)
	}
}

// themeEditor is a site's theme settings: a brand colour its script keeps
// to the brand palette (any other pick snaps back, as such editors do),
// and an accent colour it takes as picked.
const themeEditor = `<title>Theme · Acme Admin</title>
<style>.swatch{display:inline-block;width:20px;height:20px;border:1px solid #999}</style>
<h1>Appearance</h1>
<form onsubmit="return false">
  <p><label>Brand colour <input id="brand" type="color" value="#0044aa"></label> <span class="swatch" id="bs"></span></p>
  <p><label>Accent colour <input id="accent" type="color" value="#000000"></label> <span class="swatch" id="as"></span></p>
  <button>Save theme</button>
</form>
<script>
  const palette = ['#0044aa', '#aa0044', '#00aa44'];
  window.changes = [];
  const brand = document.getElementById('brand');
  brand.addEventListener('input', () => { if (!palette.includes(brand.value)) brand.value = '#0044aa'; });
  const accent = document.getElementById('accent');
  accent.addEventListener('input', () => { document.getElementById('as').style.background = accent.value; });
  accent.addEventListener('change', (e) => window.changes.push(e.type + ' ' + accent.value));
</script>`

// TestColorIsSetAsThePickerDoes: a 1.9.0 type on a color input sets it as
// its picker would: the page's input and change handlers see the colour;
// a page that snaps the colour back makes the type not_actionable, saying
// so. Before this, a color was refused and the fields stayed as they were.
func TestColorIsSetAsThePickerDoes(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openRealPages(t, themeEditor, true)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Accent colour").Ref, Text: "#12Ab9f"}, allowAll)
	if err != nil {
		t.Fatalf("typing a colour: %v", err)
	}
	if !res.Dispatched {
		t.Fatal("the colour was set but the result says nothing was dispatched")
	}
	obs = res.Observation
	if got := evalMain(t, s, `accent.value + ' ' + getComputedStyle(document.getElementById('as')).backgroundColor + ' ' + window.changes.join()`); got != "#12ab9f rgb(18, 171, 159) change #12ab9f" {
		t.Fatalf("after typing the accent colour the page shows %q", got)
	}
	if res, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Brand colour").Ref, Text: "#aa0044"}, allowAll); err != nil {
		t.Fatalf("typing a palette colour: %v", err)
	}
	obs = res.Observation
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Brand colour").Ref, Text: "#ff0000"}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("a colour the page snapped back is refused with %q", err)
	}
	if got := evalMain(t, s, `brand.value`); got != "#0044aa" {
		t.Fatalf("the brand colour is %q", got)
	}
}

// signup is a sign-up form of text fields: a short code with a maximum
// length, a nickname field a page script empties on input (it rejects
// what it does not like), a pre-filled bio and a rich-text message.
const signup = `<title>Join · Makers Forum</title>
<form onsubmit="window.submits = (window.submits || 0) + 1; return false">
  <p><label>Invite code <input id="code" maxlength="6" placeholder="6 letters"></label></p>
  <p><label>Nickname <input id="nick"></label></p>
  <p><label>Bio <textarea id="bio">I build boats.</textarea></label></p>
  <p><label>Email <input id="mail" type="email"></label></p>
  <div role="textbox" aria-label="Message" contenteditable="true"><p>Hello</p></div>
  <button>Join</button>
</form>
<script>
  document.getElementById('nick').addEventListener('input', (e) => { e.target.value = ''; });
</script>`

// TestTypeIsCheckedInThePage: after every type of a 1.9.0 session the
// page checks that the field took the text: a maximum length that cut it
// and a script that emptied the field are not_actionable, saying so; a
// field that took it (appended to a pre-filled text, a field without a
// caret, a rich-text editor) succeeds. A rejected text is not submitted.
func TestTypeIsCheckedInThePage(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	s, obs := openRealPages(t, signup, true)
	typeInto := func(name, text string) error {
		t.Helper()
		res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, name).Ref, Text: text}, allowAll)
		if err == nil {
			obs = res.Observation
		}
		return err
	}
	err := typeInto("Invite code", "ABCDEFGH")
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "maximum length") || strings.Contains(err.Error(), "ABCDEF") {
		t.Fatalf("cut text refusal says %q", err)
	}
	if got := evalMain(t, s, `document.getElementById('code').value`); got != "ABCDEF" {
		t.Fatalf("the code field holds %q", got)
	}
	// A text that did not go in is never submitted: the check runs before
	// the Enter.
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Nickname").Ref, Text: "zoe", Submit: true}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if got := evalMain(t, s, `String(window.submits || 0)`); got != "0" {
		t.Fatalf("a rejected text was submitted %s times", got)
	}
	err = typeInto("Nickname", "zoe")
	wantCode(t, err, errcode.NotActionable)
	if !strings.Contains(err.Error(), "does not hold the text") {
		t.Fatalf("rejected text refusal says %q", err)
	}
	for _, c := range []struct{ name, text, id, want string }{
		{"Bio", " And kites.", "bio", "I build boats. And kites."},
		{"Email", "zoe@example.com", "mail", "zoe@example.com"},
	} {
		if err := typeInto(c.name, c.text); err != nil {
			t.Fatalf("typing into %s: %v", c.name, err)
		}
		if got := evalMain(t, s, `document.getElementById('`+c.id+`').value`); got != c.want {
			t.Fatalf("%s holds %q, want %q", c.name, got, c.want)
		}
	}
	// Text typed over a selection (a chord selected all) replaces it.
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActPress, Ref: find(t, obs, "Bio").Ref, Key: "Control+a"}, allowAll)
	if err != nil {
		t.Fatal(err)
	}
	obs = res.Observation
	if err := typeInto("Bio", "Sailor."); err != nil {
		t.Fatalf("typing over the selection: %v", err)
	}
	if got := evalMain(t, s, `document.getElementById('bio').value`); got != "Sailor." {
		t.Fatalf("Bio holds %q after typing over the selection", got)
	}
	if err := typeInto("Message", " world"); err != nil {
		t.Fatalf("typing into the editor: %v", err)
	}
	// A text that went in is submitted.
	if _, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Email").Ref, Text: ".uk", Submit: true}, allowAll); err != nil {
		t.Fatal(err)
	}
	if got := evalMain(t, s, `String(window.submits || 0)`); got != "1" {
		t.Fatalf("an accepted text was submitted %s times", got)
	}
}

// BenchmarkTypeChecked: one type into a text field with the page's check
// (1.9.0) and without it (older versions), the observation after it
// included.
func BenchmarkTypeChecked(b *testing.B) {
	for _, real := range []bool{false, true} {
		b.Run(map[bool]string{false: "unchecked", true: "checked"}[real], func(b *testing.B) {
			ctx := browsertest.Context(b, 10*time.Minute)
			bs, err := shared.Get(b).NewSession(ctx, browser.SessionOptions{Interactions: true, Frames: true, RealPages: real})
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close(ctx)
			s := bs.(*Session)
			obs, err := s.Navigate(ctx, browsertest.Serve(b, signup))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				ref := ""
				for _, c := range obs.Controls {
					if c.Name == "Bio" {
						ref = c.Ref
					}
				}
				res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: ref, Text: "x"}, allowAll)
				if err != nil {
					b.Fatal(err)
				}
				obs = res.Observation
			}
		})
	}
}

// TestRangeKeyBound: a range takes at most observation.MaxSelectKeys
// arrows from its nearer end: a value at the bound is reached, one past
// it is not_actionable, the slider untouched.
func TestRangeKeyBound(t *testing.T) {
	t.Parallel()
	ctx := browsertest.Context(t, time.Minute)
	max := 3 * observation.MaxSelectKeys
	s, obs := openRealPages(t, fmt.Sprintf(`<title>Mixer</title><label>Volume <input id="vol" type="range" min="0" max="%d" value="7"></label>`, max), true)
	at := strconv.Itoa(observation.MaxSelectKeys)
	res, err := s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Volume").Ref, Text: at}, allowAll)
	if err != nil {
		t.Fatalf("a value %s keys away: %v", at, err)
	}
	obs = res.Observation
	if got := evalMain(t, s, `document.getElementById('vol').value`); got != at {
		t.Fatalf("the slider holds %q, want %s", got, at)
	}
	_, err = s.Act(ctx, browser.Action{Kind: browser.ActType, Ref: find(t, obs, "Volume").Ref, Text: strconv.Itoa(observation.MaxSelectKeys + 1)}, allowAll)
	wantCode(t, err, errcode.NotActionable)
	if got := evalMain(t, s, `document.getElementById('vol').value`); got != at {
		t.Fatalf("the refused slider moved to %q", got)
	}
}
