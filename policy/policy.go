// Package policy decides what a session may do: the task grant (allowed
// origins and action classes), the classification of consequential actions
// from a control's full label facts, and single-use approvals bound to
// those facts. Page content never authorizes anything; the facts are read
// live from the page by the runtime, never taken from the model's words.
package policy

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/veetbot/veetbrowser/errcode"
)

// Action classes a grant may allow.
const (
	ClassNavigate = "navigate"
	ClassClick    = "click"
	ClassInput    = "input" // type, press, select, check, uncheck
	ClassDialog   = "dialog"
	ClassUpload   = "upload"
)

// Grant is a session's task grant. Empty Origins or Classes allow all.
type Grant struct {
	Origins []string // e.g. "https://example.com"; exact scheme://host[:port]
	Classes []string
	// ReadValues (tool version 1.9.0, the grant GrantReadValues) shows
	// the current value of each editable control that is not a credential
	// or payment field (docs/realpages.md). Off by default, and not an
	// action class: an empty Classes list never grants it.
	ReadValues bool
	// Contain (tool version 1.9.0, docs/navigation.md) holds every request
	// of the session's pages, not only navigations, to Origins and
	// Resources: the others are blocked before they leave the browser,
	// and WebRTC is off. Off by default: a page may then load what it
	// likes from anywhere the destination rules allow.
	Contain bool
	// Resources are origins a contained page may load from (a site's
	// CDNs) without being granted for navigation or actions.
	Resources []string
}

// AllowsRequest reports whether a page of the session may send a request
// to origin: under containment only to the granted origins and resources,
// otherwise anywhere.
func (g Grant) AllowsRequest(origin string) bool {
	if !g.Contain || g.AllowsOrigin(origin) {
		return true
	}
	for _, o := range g.Resources {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// Contained lists the only origins a contained grant's requests may go to,
// nil if every origin may be reached (no containment, or any origin
// granted).
func (g Grant) Contained() []string {
	if !g.Contain || len(g.Origins) == 0 {
		return nil
	}
	return append(slices.Clone(g.Origins), g.Resources...)
}

// GrantReadValues is the ReadValues grant's name where a grant is written
// down: the read_values field of the records and of the sidecar's API.
const GrantReadValues = "read_values"

// AllowsOrigin reports whether origin (scheme://host[:port]) is granted.
func (g Grant) AllowsOrigin(origin string) bool {
	if len(g.Origins) == 0 {
		return true
	}
	for _, o := range g.Origins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// AllowsURL reports whether rawURL's origin is granted.
func (g Grant) AllowsURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return g.AllowsOrigin(u.Scheme + "://" + u.Host)
}

// AllowsClass reports whether the action class is granted.
func (g Grant) AllowsClass(class string) bool {
	if len(g.Classes) == 0 {
		return true
	}
	for _, c := range g.Classes {
		if c == class {
			return true
		}
	}
	return false
}

// Facts are a control's full independent label facts, read live from the
// page at dispatch time.
type Facts struct {
	Origin string `json:"origin"`
	Role   string `json:"role"`
	Name   string `json:"name"`
	// NameCut: the name is longer than the facts keep (MaxFactName UTF-16
	// units; a control's name in an observation keeps 1,024).
	NameCut bool   `json:"name_cut,omitempty"`
	Form    string `json:"form,omitempty"`   // the form's accessible name
	Submit  bool   `json:"submit,omitempty"` // the action submits a form
}

// MaxFactName is how much of a control's accessible name its facts keep,
// in UTF-16 units: the whole name a person approves, within a bound.
const MaxFactName = 8192

func (f Facts) String() string {
	name := f.Name
	if f.NameCut {
		name += "…"
	}
	s := fmt.Sprintf("%s %q on %s", f.Role, name, f.Origin)
	if f.Form != "" {
		s += fmt.Sprintf(" in form %q", f.Form)
	}
	if f.Submit {
		s += " (submits the form)"
	}
	return s
}

// consequentialWords name the publish/post/send/buy/pay/delete/confirm
// family in English, Spanish, French, German, Portuguese, Arabic and Hindi;
// spacelessWords name it in Chinese and Japanese. A whole-word (or, for
// scripts without spaces, substring) match on the full name classifies a
// control.
var consequentialWords = []string{
	// English
	"publish", "post", "tweet", "send", "submit", "buy", "purchase", "order", "pay", "checkout", "check out", "delete", "confirm", "transfer",
	// Spanish
	"publicar", "enviar", "comprar", "pagar", "eliminar", "borrar", "confirmar",
	// French
	"publier", "envoyer", "acheter", "payer", "supprimer", "confirmer", "commander",
	// German
	"veröffentlichen", "posten", "senden", "absenden", "kaufen", "bezahlen", "löschen", "bestätigen", "bestellen",
	// Portuguese
	"publicar", "excluir", "apagar",
	// Arabic
	"نشر", "انشر", "إرسال", "ارسال", "أرسل", "شراء", "اشتر", "دفع", "ادفع", "حذف", "احذف", "تأكيد", "أكد",
	// Hindi
	"प्रकाशित", "पोस्ट", "भेजें", "भेजना", "खरीदें", "भुगतान", "हटाएं", "मिटाएं", "पुष्टि",
}

var keywords = func() map[string]bool {
	m := make(map[string]bool, len(consequentialWords))
	for _, w := range consequentialWords {
		m[strings.ToLower(w)] = true
	}
	return m
}()

// spacelessWords are the consequential words of scripts written without
// spaces between words: they match anywhere in a name.
var spacelessWords = []string{
	// Chinese
	"发布", "发送", "购买", "支付", "付款", "删除", "确认", "提交",
	// Japanese
	"投稿", "公開", "送信", "購入", "支払", "削除", "確認",
}

var spacelessRE = func() *regexp.Regexp {
	quoted := make([]string, len(spacelessWords))
	for i, w := range spacelessWords {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?:` + strings.Join(quoted, "|") + `)`)
}()

var wordSplit = regexp.MustCompile(`[^\p{L}\p{M}\p{N}]+`)

// benignVerbs start names whose keywords are nouns: "Like post 3", "Share
// post", "View order".
var benignVerbs = map[string]bool{
	"like": true, "unlike": true, "share": true, "repost": true, "reply": true, "view": true, "open": true,
	"show": true, "hide": true, "edit": true, "copy": true, "follow": true, "bookmark": true, "save": true,
	"report": true, "translate": true, "preview": true, "track": true,
}

// namesAction reports whether a name commands a consequential action: a
// keyword (or the two-word "check out") anywhere in it, unless the name
// starts with a benign verb that is not itself a keyword, which makes the
// keyword a noun. Whole words only: "Postcode" and "Deleted items" do not
// match.
func namesAction(name string) bool {
	words := wordSplit.Split(strings.ToLower(strings.TrimSpace(name)), -1)
	words = slices.DeleteFunc(words, func(w string) bool { return w == "" })
	if len(words) == 0 || (benignVerbs[words[0]] && !keywords[words[0]]) {
		return false
	}
	for i, w := range words {
		if keywords[w] || (i+1 < len(words) && keywords[w+" "+words[i+1]]) {
			return true
		}
	}
	return false
}

// Consequential reports whether acting on a control with these facts needs
// an approval: it submits a form, or its name says it publishes, sends,
// buys, pays, deletes or confirms.
func Consequential(f Facts) bool {
	if f.Submit {
		return true
	}
	switch f.Role {
	case "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "switch", "checkbox", "radio", "tab", "treeitem", "generic":
	case "dialog":
		// Accepting a dialog: its message is a question, judged whole.
		words := wordSplit.Split(strings.ToLower(f.Name), -1)
		return slices.ContainsFunc(words, func(w string) bool { return keywords[w] }) || spacelessRE.MatchString(f.Name)
	default:
		return false
	}
	return namesAction(f.Name) || spacelessRE.MatchString(f.Name)
}

// Approver decides on a consequential action from its facts alone. It is
// asked only when no stored approval matches.
type Approver interface {
	Approve(ctx context.Context, f Facts) (bool, error)
}

// Approvals are single-use approvals bound to exact facts.
type Approvals struct {
	mu      sync.Mutex
	pending []Facts
}

// Add stores one approval for exactly these facts.
func (a *Approvals) Add(f Facts) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = append(a.pending, f)
}

// Consume removes and reports one approval matching f exactly.
func (a *Approvals) Consume(f Facts) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, p := range a.pending {
		if p == f {
			a.pending = append(a.pending[:i], a.pending[i+1:]...)
			return true
		}
	}
	return false
}

// Permit is an authorization to dispatch one action. Spend is called once,
// right before input is dispatched, after the last live guard: it consumes
// the approval the action needed, so an action that a guard stops before
// any input keeps the user's approval for a later try.
type Permit struct {
	facts    Facts
	approval *Approvals // nil: no approval needed
	source   string     // who gave the approval: SourceStored, SourceApprover, or ""
}

// Where a permit's approval came from.
const (
	SourceStored   = "stored"   // an approval the user stored for exactly these facts
	SourceApprover = "approver" // the approver, asked for these facts
)

// Source says who gave the permit's approval; "" when none was needed.
func (p Permit) Source() string { return p.source }

// Spend consumes the permit's approval. It fails with approval_required if
// the approval is gone.
func (p Permit) Spend() error {
	if p.approval == nil || p.approval.Consume(p.facts) {
		return nil
	}
	return errcode.New(errcode.ApprovalRequired, "the approval for %s is no longer there; it is needed again", p.facts)
}

// Has reports whether an approval for exactly f is stored.
func (a *Approvals) Has(f Facts) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.pending, f)
}

// Authorize checks a consequential action: a stored approval for exactly
// these facts is found, else the approver (if any) is asked and its yes is
// stored; otherwise approval_required names the facts. Nothing is consumed
// here: the permit's Spend does that at dispatch.
func Authorize(ctx context.Context, f Facts, stored *Approvals, approver Approver) (Permit, error) {
	if !Consequential(f) {
		return Permit{}, nil
	}
	if stored != nil && stored.Has(f) {
		return Permit{facts: f, approval: stored, source: SourceStored}, nil
	}
	if approver != nil {
		ok, err := approver.Approve(ctx, f)
		if err != nil {
			return Permit{}, errcode.Wrap(errcode.ApprovalRequired, err, "approval could not be obtained for %s", f)
		}
		if ok && stored == nil {
			return Permit{source: SourceApprover}, nil
		}
		if ok {
			stored.Add(f)
			return Permit{facts: f, approval: stored, source: SourceApprover}, nil
		}
		return Permit{}, errcode.New(errcode.ApprovalRequired, "the approver declined %s", f)
	}
	return Permit{}, errcode.Wrap(errcode.ApprovalRequired, &NeedsApproval{Facts: f}, "this action needs the user's approval: %s", f)
}

// NeedsApproval is the cause of approval_required when no approver could
// be asked: the facts a user's approval must name. A client of a sidecar
// relays them to its user (errors.As finds it).
type NeedsApproval struct{ Facts Facts }

func (n *NeedsApproval) Error() string { return "needs approval: " + n.Facts.String() }
