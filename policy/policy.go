// Package policy decides what a session may do: the task grant (allowed
// origins and action classes), the classification of consequential actions
// from a control's full label facts, and single-use approvals bound to
// those facts. Page content never authorizes anything; the facts are read
// live from the page by the runtime, never taken from the model's words.
package policy

import (
	"context"
	"errors"
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
	// Approve pre-approves consequential classes (ApproveClasses) for an
	// unattended run: an action all of whose classes are listed needs no
	// person, and its record says it was pre-approved. Empty approves none.
	Approve []string
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

// Consequential classes: what a consequential action does, as its facts
// name it. A grant may pre-approve classes (Grant.Approve).
const (
	ApproveSubmit  = "submit"
	ApproveSend    = "send"
	ApprovePublish = "publish"
	ApprovePay     = "pay"
	ApproveDelete  = "delete"
	ApproveConfirm = "confirm"
)

// ApproveClasses are the consequential classes, in the order Classes lists
// them.
var ApproveClasses = []string{ApproveSubmit, ApproveSend, ApprovePublish, ApprovePay, ApproveDelete, ApproveConfirm}

// classWords name each consequential class in English, Spanish, French,
// German, Portuguese, Arabic and Hindi (words: a whole-word match on the
// full name), and in Chinese and Japanese (spaceless: scripts written
// without spaces between words, matched anywhere in a name).
var classWords = []struct {
	class            string
	words, spaceless []string
}{
	{ApproveSubmit, []string{"submit"}, []string{"提交"}},
	{ApproveSend, []string{"send", "enviar", "envoyer", "senden", "absenden", "إرسال", "ارسال", "أرسل", "भेजें", "भेजना"},
		[]string{"发送", "送信"}},
	{ApprovePublish, []string{"publish", "post", "tweet", "publicar", "publier", "veröffentlichen", "posten", "نشر", "انشر", "प्रकाशित", "पोस्ट"},
		[]string{"发布", "投稿", "公開"}},
	{ApprovePay, []string{"buy", "purchase", "order", "pay", "checkout", "check out", "transfer", "comprar", "pagar", "acheter", "payer", "commander",
		"kaufen", "bezahlen", "bestellen", "شراء", "اشتر", "دفع", "ادفع", "खरीदें", "भुगतान"},
		[]string{"购买", "支付", "付款", "購入", "支払"}},
	{ApproveDelete, []string{"delete", "eliminar", "borrar", "supprimer", "löschen", "excluir", "apagar", "حذف", "احذف", "हटाएं", "मिटाएं"},
		[]string{"删除", "削除"}},
	{ApproveConfirm, []string{"confirm", "confirmar", "confirmer", "bestätigen", "تأكيد", "أكد", "पुष्टि"},
		[]string{"确认", "確認"}},
}

// keywords maps each (lower-case) consequential word to its class.
var keywords = func() map[string]string {
	m := make(map[string]string)
	for _, c := range classWords {
		for _, w := range c.words {
			m[strings.ToLower(w)] = c.class
		}
	}
	return m
}()

// spacelessWords are the words of every class written without spaces.
var spacelessWords = func() []string {
	var all []string
	for _, c := range classWords {
		all = append(all, c.spaceless...)
	}
	return all
}()

var wordSplit = regexp.MustCompile(`[^\p{L}\p{M}\p{N}]+`)

// benignVerbs start names whose keywords are nouns: "Like post 3", "Share
// post", "View order".
var benignVerbs = map[string]bool{
	"like": true, "unlike": true, "share": true, "repost": true, "reply": true, "view": true, "open": true,
	"show": true, "hide": true, "edit": true, "copy": true, "follow": true, "bookmark": true, "save": true,
	"report": true, "translate": true, "preview": true, "track": true,
}

// namedClasses adds to set the classes a name commands: a keyword (or the
// two-word "check out") anywhere in it, unless the name starts with a
// benign verb that is not itself a keyword, which makes the keyword a noun.
// Whole words only: "Postcode" and "Deleted items" do not match. A
// question (a dialog's message) is judged whole: any single keyword, no
// benign verbs. Spaceless words match anywhere, in either case.
func namedClasses(set map[string]bool, name string, question bool) {
	words := wordSplit.Split(strings.ToLower(strings.TrimSpace(name)), -1)
	words = slices.DeleteFunc(words, func(w string) bool { return w == "" })
	if question || len(words) == 0 || !benignVerbs[words[0]] || keywords[words[0]] != "" {
		for i, w := range words {
			if c := keywords[w]; c != "" {
				set[c] = true
			}
			if !question && i+1 < len(words) && keywords[w+" "+words[i+1]] != "" {
				set[keywords[w+" "+words[i+1]]] = true
			}
		}
	}
	for _, c := range classWords {
		if slices.ContainsFunc(c.spaceless, func(w string) bool { return strings.Contains(name, w) }) {
			set[c.class] = true
		}
	}
}

// Classes are the consequential classes of acting on a control with these
// facts, in ApproveClasses order: those its name commands, or submit for
// a form submission whose name commands none ("Send" submitting a form is
// send, "Save" submitting one is submit). None: no approval is needed.
func Classes(f Facts) []string {
	set := map[string]bool{}
	switch f.Role {
	case "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "switch", "checkbox", "radio", "tab", "treeitem", "generic":
		namedClasses(set, f.Name, false)
	case "dialog":
		// Accepting a dialog: its message is a question, judged whole.
		namedClasses(set, f.Name, true)
	}
	if f.Submit && len(set) == 0 {
		set[ApproveSubmit] = true
	}
	var out []string
	for _, c := range ApproveClasses {
		if set[c] {
			out = append(out, c)
		}
	}
	return out
}

// Consequential reports whether acting on a control with these facts needs
// an approval: it submits a form, or its name says it publishes, sends,
// buys, pays, deletes or confirms.
func Consequential(f Facts) bool { return len(Classes(f)) > 0 }

// Approver decides on a consequential action from its facts alone. It is
// asked only when no stored approval matches.
type Approver interface {
	Approve(ctx context.Context, f Facts) (bool, error)
}

// SourcedApprover is an approver that says who decided, for the record:
// one that asks several in turn. Authorize prefers it to Approve.
type SourcedApprover interface {
	ApproveFrom(ctx context.Context, f Facts) (ok bool, source string, err error)
}

// PreApproved returns the approver of a grant's pre-approved classes: yes
// (source "pre_approved:" and the classes) for an action all of whose
// classes are in classes, next's answer otherwise (none: approval_required
// naming the facts). With no classes it is next itself.
func PreApproved(classes []string, next Approver) Approver {
	if len(classes) == 0 {
		return next
	}
	return preApproval{classes: classes, next: next}
}

type preApproval struct {
	classes []string
	next    Approver
}

func (p preApproval) Approve(ctx context.Context, f Facts) (bool, error) {
	ok, _, err := p.ApproveFrom(ctx, f)
	return ok, err
}

func (p preApproval) ApproveFrom(ctx context.Context, f Facts) (bool, string, error) {
	cs := Classes(f)
	if len(cs) > 0 && !slices.ContainsFunc(cs, func(c string) bool { return !slices.Contains(p.classes, c) }) {
		return true, SourcePreApproved + ":" + strings.Join(cs, ","), nil
	}
	if p.next == nil {
		return false, "", errcode.Wrap(errcode.ApprovalRequired, &NeedsApproval{Facts: f}, "this action needs the user's approval: %s", f)
	}
	return Ask(ctx, p.next, f)
}

// Ask asks approver, with its source when it names one: the one way an
// approver of a chain asks the next.
func Ask(ctx context.Context, approver Approver, f Facts) (bool, string, error) {
	if sa, ok := approver.(SourcedApprover); ok {
		return sa.ApproveFrom(ctx, f)
	}
	ok, err := approver.Approve(ctx, f)
	return ok, SourceApprover, err
}

// CheckApproveClasses refuses a pre-approved class that is not one of
// ApproveClasses.
func CheckApproveClasses(classes []string) error {
	for _, c := range classes {
		if !slices.Contains(ApproveClasses, c) {
			return errcode.New(errcode.InvalidArgument, "unknown approval class %s (one of %s)", errcode.Quote(c), strings.Join(ApproveClasses, ", "))
		}
	}
	return nil
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
	// SourcePreApproved: the grant pre-approved the action's classes; the
	// source names them ("pre_approved:send").
	SourcePreApproved = "pre_approved"
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
		ok, source, err := Ask(ctx, approver, f)
		if errcode.Of(err) == errcode.ApprovalRefused || errors.As(err, new(*NeedsApproval)) {
			return Permit{}, err // a person said no; no one could be asked
		}
		if err != nil {
			return Permit{}, errcode.Wrap(errcode.ApprovalRequired, err, "approval could not be obtained for %s", f)
		}
		if ok && stored == nil {
			return Permit{source: source}, nil
		}
		if ok {
			stored.Add(f)
			return Permit{facts: f, approval: stored, source: source}, nil
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
