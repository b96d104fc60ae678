package chromium

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/internal/browsertest"
	"github.com/veetbot/veetbrowser/observation"
)

// Field values on request (tool version 1.9.0, the read_values grant).

// valuesPage is a shop's checkout and account page: fields a person reads
// (shipping, notes, a rich-text bio, a pre-filled search) beside every
// kind of credential and payment field, each of which holds a canary
// that no view may show.
var valuesPage = `<!doctype html><html lang="en"><head><title>Checkout · Northwind Outfitters</title>
<style>body{font:15px system-ui;margin:0}header{background:#234;color:#fff;padding:10px 20px}
main{display:grid;grid-template-columns:1fr 1fr;gap:16px;padding:16px 20px}fieldset{border:1px solid #ccd;border-radius:6px}
label{display:block;margin:6px 0}.bio{border:1px solid #aab;min-height:40px;padding:4px}</style></head><body>
<header><form role="search"><input type="search" name="q" aria-label="Search the shop" value="winter boots"></form></header>
<main>
<fieldset><legend>Shipping</legend>
 <label>Full name <input name="fullname" autocomplete="name" value="Ada Lovelace"></label>
 <label>Email <input type="email" name="email" value="ada@example.test"></label>
 <label>Quantity <input type="number" name="qty" value="3"></label>
 <label>Delivery date <input type="date" name="when" value="2026-12-24"></label>
 <label>Country <select name="country"><option>Spain</option><option selected>Portugal</option></select></label>
 <label>Coupon <input name="coupon" placeholder="Optional"></label>
 <label>Notes for the courier <textarea name="notes">Leave at the door.
Ring twice.</textarea></label>
 <label>Gift message <input name="gift" id="gift"></label>
 <div class="bio" contenteditable="true" aria-label="About you"><p>Mathematician</p><p>Writer</p></div>
 <label>Exactly the bound <textarea id="at"></textarea></label>
 <label>One past the bound <textarea id="past"></textarea></label>
 <input type="hidden" name="csrf" value="CANARY-HIDDEN">
 <label>Receipt <input type="file" name="receipt"></label>
</fieldset>
<fieldset><legend>Account and payment</legend>
 <label>Password <input type="password" name="pw" value="CANARY-PASSWORD"></label>
 <label>Current <input name="cur" autocomplete="current-password" value="CANARY-CURRENT"></label>
 <label>New <input name="nu" autocomplete="section-a new-password" value="CANARY-NEW"></label>
 <label>Code we sent <input name="otc" autocomplete="one-time-code" value="CANARY-OTC"></label>
 <label>Card <input name="card" autocomplete="cc-number" value="CANARY-CCNUMBER"></label>
 <label>Security <input name="sec" autocomplete="cc-csc" value="CANARY-CSC"></label>
 <label>Expiry <input name="exp" autocomplete="cc-exp" value="CANARY-EXP"></label>
 <label>Month <input name="expm" autocomplete="cc-exp-month" value="CANARY-EXPMONTH"></label>
 <label>Year <input name="expy" autocomplete="billing cc-exp-year" value="CANARY-EXPYEAR"></label>
 <label>Name on card <input name="ccn" autocomplete="cc-name" value="CANARY-CCNAME"></label>
 <label>PIN <input name="p1" value="CANARY-PIN"></label>
 <label>CVV <input name="p2" value="CANARY-CVV"></label>
 <label>Your secret answer <input name="p3" value="CANARY-SECRET"></label>
 <label>Access <input name="api_token" value="CANARY-TOKEN-NAME"></label>
 <label>Login <input id="userPassword" value="CANARY-CAMEL"></label>
 <label>Contraseña <input name="es" value="CANARY-ES"></label>
 <label>Mot de passe <input name="fr" value="CANARY-FR"></label>
 <label>Passwort <input name="de" value="CANARY-DE"></label>
 <label>Senha <input name="pt" value="CANARY-PT"></label>
 <label>كلمة المرور <input name="ar" value="CANARY-AR"></label>
 <label>पासवर्ड <input name="hi" value="CANARY-HI"></label>
 <label>登录密码 <input name="zh" value="CANARY-ZH"></label>
 <label>パスワード <input name="ja" value="CANARY-JA"></label>
 <div contenteditable="true" aria-label="Recovery secret">CANARY-CE-SECRET</div>
</fieldset>
</main>
<script>
// What a person typed after load: the live value, not the attribute.
document.getElementById('gift').value = 'Happy birthday!';
document.getElementById('at').value = 'a'.repeat(255) + 'Z';
document.getElementById('past').value = 'b'.repeat(256) + 'Y';
</script></body></html>`

// valuesSession opens valuesPage in a session with opts.
func valuesSession(t *testing.T, opts browser.SessionOptions) *observation.Observation {
	t.Helper()
	ctx := browsertest.Context(t, time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(ctx) })
	obs, err := bs.Navigate(ctx, browsertest.Serve(t, valuesPage))
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func valueOf(t *testing.T, obs *observation.Observation, name string) (*string, bool) {
	t.Helper()
	for _, c := range obs.Controls {
		if c.Name == name {
			return c.Value, c.ValueTruncated
		}
	}
	t.Fatalf("no control %q in %q", name, names(obs))
	return nil, false
}

var canaryRE = regexp.MustCompile(`CANARY-[A-Z-]+`)

// wantNoCanary fails if any canary (or the word value) is anywhere in the
// canonical observation.
func wantNoCanary(t *testing.T, obs *observation.Observation, also ...string) {
	t.Helper()
	b, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	if leaked := canaryRE.FindAllString(string(b), -1); len(leaked) > 0 {
		t.Errorf("canaries in the observation: %q", leaked)
	}
	for _, s := range also {
		if i := strings.Index(string(b), s); i >= 0 {
			t.Errorf("%q in the observation: …%s…", s, b[max(i-80, 0):min(i+40, len(b))])
		}
	}
}

// TestReadValuesShowsFieldsAndNeverCredentials fails on the base commit
// (no control has a value): under the grant each editable control of a
// non-credential field carries its live value, a single select its
// chosen option, an editing host its text; the bound is exact at 256
// units and cuts at 257; no credential, payment, hidden or file field
// shows one, in any of the suite's languages; names stay value-free.
func TestReadValuesShowsFieldsAndNeverCredentials(t *testing.T) {
	t.Parallel()
	obs := valuesSession(t, browser.SessionOptions{RealPages: true, ReadValues: true})
	for _, tc := range []struct{ name, want string }{
		{"Search the shop", "winter boots"},
		{"Full name", "Ada Lovelace"},
		{"Email", "ada@example.test"},
		{"Quantity", "3"},
		{"Delivery date", "2026-12-24"},
		{"Country", "Portugal"},
		{"Coupon", ""}, // empty is a value: the field is known empty
		{"Notes for the courier", "Leave at the door.\nRing twice."},
		{"Gift message", "Happy birthday!"}, // set after load: the live value
		{"About you", "Mathematician\nWriter"},
		{"Exactly the bound", strings.Repeat("a", 255) + "Z"},
		{"One past the bound", strings.Repeat("b", 256)},
	} {
		v, cut := valueOf(t, obs, tc.name)
		if v == nil || *v != tc.want {
			t.Errorf("%s: value %v, want %q", tc.name, v, tc.want)
		}
		if wantCut := tc.name == "One past the bound"; cut != wantCut {
			t.Errorf("%s: value_truncated %v, want %v", tc.name, cut, wantCut)
		}
	}
	if v, _ := valueOf(t, obs, "Receipt"); v != nil {
		t.Errorf("a file input has a value: %q", *v)
	}
	for _, c := range obs.Controls {
		if strings.Contains(c.Name, "birthday") || strings.Contains(c.Name, "Portugal") {
			t.Errorf("a name holds a value: %q", c.Name)
		}
	}
	wantNoCanary(t, obs)
}

// TestNoValuesWithoutTheGrant: a 1.9.0 session without read_values, and an
// older session that holds the grant, read no value at all: not in a
// control, not in the text, not in a name.
func TestNoValuesWithoutTheGrant(t *testing.T) {
	t.Parallel()
	for _, opts := range []browser.SessionOptions{{RealPages: true}, {Interactions: true, Frames: true, Reading: true, ReadValues: true}} {
		obs := valuesSession(t, opts)
		if len(obs.Controls) < 20 {
			t.Fatalf("%+v: %d controls: %q", opts, len(obs.Controls), names(obs))
		}
		wantNoCanary(t, obs, `"value"`, "winter boots", "Ada Lovelace", "Happy birthday", "Leave at the door", "Mathematician", "Portugal")
	}
}

// TestReadValuesInFrames: a frame's fields are read as the page's, an
// out-of-process frame's too, its credentials never.
func TestReadValuesInFrames(t *testing.T) {
	t.Parallel()
	inner := otherOrigin(t, map[string]string{"/pay": `<label>Order note <textarea>Gift wrap, please</textarea></label>
<label>Card security code <input value="CANARY-FRAME-CSC"></label><label>Card <input autocomplete="cc-number" value="CANARY-FRAME-CC"></label>`})
	top := browsertest.Serve(t, `<h1>Checkout</h1><iframe src="`+inner+`pay" style="width:400px;height:200px"></iframe>`)
	ctx := browsertest.Context(t, time.Minute)
	bs, err := shared.Get(t).NewSession(ctx, browser.SessionOptions{Reading: true, Frames: true, Interactions: true, RealPages: true, ReadValues: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close(ctx) })
	if _, err := bs.Navigate(ctx, top); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		obs, err := bs.Observe(ctx, observation.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(obs.Controls, func(c observation.Control) bool { return c.Name == "Order note" }); i >= 0 {
			if c := obs.Controls[i]; c.Frame == 0 || c.Value == nil || *c.Value != "Gift wrap, please" {
				t.Errorf("the frame's note: frame %d, value %v", c.Frame, c.Value)
			}
			wantNoCanary(t, obs)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the frame's fields never showed")
}

// BenchmarkObserveValues: what reading values costs an observation of a
// form of 300 filled fields (256 kept, each with a 200-unit value), with
// the grant and without; it reports the canonical bytes too.
func BenchmarkObserveValues(b *testing.B) {
	var page strings.Builder
	page.WriteString("<form>")
	for i := range 300 {
		fmt.Fprintf(&page, `<label>Field %d <textarea>%s</textarea></label>`, i, strings.Repeat("v", 200))
	}
	page.WriteString("</form>")
	for _, granted := range []bool{false, true} {
		b.Run(fmt.Sprintf("read_values=%v", granted), func(b *testing.B) {
			ctx := browsertest.Context(b, 5*time.Minute)
			bs, err := shared.Get(b).NewSession(ctx, browser.SessionOptions{RealPages: true, ReadValues: granted})
			if err != nil {
				b.Fatal(err)
			}
			defer bs.Close(ctx)
			if _, err := bs.Navigate(ctx, browsertest.Serve(b, page.String())); err != nil {
				b.Fatal(err)
			}
			var obs *observation.Observation
			for b.Loop() {
				if obs, err = bs.Observe(ctx, observation.Request{}); err != nil {
					b.Fatal(err)
				}
			}
			raw, _ := json.Marshal(obs)
			b.ReportMetric(float64(len(raw)), "canonical-bytes")
		})
	}
}
