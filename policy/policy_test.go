package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/errcode"
)

func TestConsequentialInSeveralLanguages(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"Publish", true}, {"Post reply", true}, {"Send message", true}, {"Buy now", true}, {"Pay $20", true},
		{"Delete account", true}, {"Confirm order", true},
		{"Publicar", true}, {"Enviar mensaje", true}, {"Comprar ahora", true}, // Spanish
		{"Publier", true}, {"Supprimer", true}, {"Payer", true}, // French
		{"Veröffentlichen", true}, {"Jetzt kaufen", true}, {"Löschen", true}, // German
		{"发布", true}, {"立即购买", true}, {"删除帖子", true}, // Chinese
		{"送信する", true}, {"削除", true}, // Japanese
		{"نشر", true}, {"إرسال", true}, {"حذف", true}, // Arabic
		{"प्रकाशित करें", true}, {"भेजें", true}, // Hindi
		{"Like post 3", false}, {"Reply", false}, {"Postcode", false}, {"Repost", false}, {"Settings", false},
		{"Deleted items", false}, {"Sender", false},
		{"Yes, delete my account", true}, {"Place order", true}, {"Share post 3", false}, {"View order 12", false},
		{"Save draft", false}, {"Check out now", true},
	} {
		if got := Consequential(Facts{Role: "button", Name: tc.name}); got != tc.want {
			t.Errorf("%q: consequential %v, want %v", tc.name, got, tc.want)
		}
	}
	if !Consequential(Facts{Role: "button", Name: "Go", Submit: true}) {
		t.Error("a form submission is not consequential")
	}
	// A pointer target (tool version 1.9.0) is judged by its name, as a
	// button is: a clickable "Delete account" div deletes.
	if !Consequential(Facts{Role: "generic", Name: "Delete account"}) || Consequential(Facts{Role: "generic", Name: "Ada Lovelace"}) {
		t.Error("pointer targets are classified wrong")
	}
	if Consequential(Facts{Role: "textbox", Name: "Publish date"}) {
		t.Error("a textbox named Publish date is consequential")
	}
	if !Consequential(Facts{Role: "dialog", Name: "Permanently delete 3 files?"}) || Consequential(Facts{Role: "dialog", Name: "Leave this page?"}) {
		t.Error("accepting dialogs is classified wrong")
	}
}

// TestSpacelessWordsMatchInsideNames: a Chinese or Japanese word classifies
// a control or a dialog wherever it stands in the name, with no spaces
// around it.
func TestSpacelessWordsMatchInsideNames(t *testing.T) {
	for _, w := range spacelessWords {
		for _, role := range []string{"button", "dialog"} {
			if !Consequential(Facts{Role: role, Name: "立即" + w + "吧"}) {
				t.Errorf("%s named %q: not consequential", role, "立即"+w+"吧")
			}
		}
	}
	for _, name := range []string{"设置", "設定", "首页"} {
		if Consequential(Facts{Role: "button", Name: name}) {
			t.Errorf("%q: consequential", name)
		}
	}
}

type approver bool

func (a approver) Approve(context.Context, Facts) (bool, error) { return bool(a), nil }

func authorizeAndSpend(ctx context.Context, f Facts, stored *Approvals, a Approver) error {
	p, err := Authorize(ctx, f, stored, a)
	if err != nil {
		return err
	}
	return p.Spend()
}

func TestApprovalsAreSingleUseAndBoundToFacts(t *testing.T) {
	ctx := context.Background()
	publish := Facts{Origin: "http://127.0.0.1:1", Role: "button", Name: "Publish"}
	var stored Approvals
	if errcode.Of(authorizeAndSpend(ctx, publish, &stored, nil)) != errcode.ApprovalRequired {
		t.Fatal("no approval, yet authorized")
	}
	other := publish
	other.Name = "Publish draft"
	stored.Add(other)
	if errcode.Of(authorizeAndSpend(ctx, publish, &stored, nil)) != errcode.ApprovalRequired {
		t.Fatal("an approval for other facts authorized the action")
	}
	stored.Add(publish)
	if err := authorizeAndSpend(ctx, publish, &stored, nil); err != nil {
		t.Fatal(err)
	}
	if errcode.Of(authorizeAndSpend(ctx, publish, &stored, nil)) != errcode.ApprovalRequired {
		t.Fatal("an approval was used twice")
	}
	if err := authorizeAndSpend(ctx, publish, nil, approver(true)); err != nil {
		t.Fatal(err)
	}
	if errcode.Of(authorizeAndSpend(ctx, publish, nil, approver(false))) != errcode.ApprovalRequired {
		t.Fatal("a declined approval authorized the action")
	}
}

// An approval is consumed only when the permit is spent, at dispatch: an
// action stopped before its input keeps it, and an approver's yes is kept
// until then too.
func TestApprovalIsConsumedOnlyAtDispatch(t *testing.T) {
	ctx := context.Background()
	publish := Facts{Origin: "http://127.0.0.1:1", Role: "button", Name: "Publish"}
	var stored Approvals
	stored.Add(publish)
	if _, err := Authorize(ctx, publish, &stored, nil); err != nil {
		t.Fatal(err)
	}
	// A guard refused the dispatch: the permit is never spent.
	p, err := Authorize(ctx, publish, &stored, nil)
	if err != nil {
		t.Fatal("the approval was consumed by an action that was never dispatched")
	}
	if err := p.Spend(); err != nil {
		t.Fatal(err)
	}
	if err := p.Spend(); errcode.Of(err) != errcode.ApprovalRequired {
		t.Fatal("a permit was spent twice")
	}
	var asked Approvals
	if p, err := Authorize(ctx, publish, &asked, approver(true)); err != nil || p.Source() != SourceApprover {
		t.Fatalf("approver's yes: source %q, %v", p.Source(), err)
	}
	if p, err := Authorize(ctx, publish, &asked, nil); err != nil || p.Source() != SourceStored {
		t.Fatalf("the user's yes was lost before dispatch: source %q, %v", p.Source(), err)
	}
	// A control that needs no approval gets a permit that spends nothing.
	if p, err := Authorize(ctx, Facts{Role: "button", Name: "Next"}, &asked, nil); err != nil || p.Spend() != nil || p.Source() != "" || !asked.Has(publish) {
		t.Fatal("a plain control touched the approvals")
	}
}

func TestGrant(t *testing.T) {
	g := Grant{Origins: []string{"http://127.0.0.1:8080"}, Classes: []string{ClassClick}}
	if !g.AllowsURL("http://127.0.0.1:8080/x") || g.AllowsURL("http://127.0.0.1:8081/") || g.AllowsURL("https://127.0.0.1:8080/") {
		t.Fatal("origin matching is wrong")
	}
	if !g.AllowsClass(ClassClick) || g.AllowsClass(ClassUpload) {
		t.Fatal("class matching is wrong")
	}
	if !(Grant{}).AllowsURL("https://example.com/") {
		t.Fatal("the zero grant refuses")
	}
}

// TestClassesNameWhatAnActionDoes: each class from its words in several
// languages, several classes at once, submit only for a form submission
// whose name names none, none for a benign name.
func TestClassesNameWhatAnActionDoes(t *testing.T) {
	for _, tc := range []struct {
		f    Facts
		want string
	}{
		{Facts{Role: "button", Name: "Send"}, "send"},
		{Facts{Role: "button", Name: "Send", Submit: true}, "send"},
		{Facts{Role: "button", Name: "Save", Submit: true}, "submit"},
		{Facts{Role: "button", Name: "Confirm and pay"}, "pay,confirm"},
		{Facts{Role: "link", Name: "Löschen"}, "delete"},
		{Facts{Role: "button", Name: "立即发布"}, "publish"},
		{Facts{Role: "button", Name: "Check out"}, "pay"},
		{Facts{Role: "dialog", Name: "Delete this file?"}, "delete"},
		{Facts{Role: "button", Name: "Share post"}, ""},
		{Facts{Role: "textbox", Name: "Send"}, ""},
	} {
		if got := strings.Join(Classes(tc.f), ","); got != tc.want {
			t.Errorf("%s: classes %q, want %q", tc.f, got, tc.want)
		}
		if Consequential(tc.f) != (tc.want != "") {
			t.Errorf("%s: Consequential disagrees with Classes", tc.f)
		}
	}
	for _, c := range classWords {
		for _, w := range c.words {
			if !Consequential(Facts{Role: "button", Name: w}) {
				t.Errorf("%q (%s) is not consequential", w, c.class)
			}
		}
	}
}

// TestPreApprovedCoversOnlyItsClasses: a pre-approval says yes, naming its
// classes, only when every class of the action is pre-approved; otherwise
// the next approver is asked, or with none the action needs approval.
func TestPreApprovedCoversOnlyItsClasses(t *testing.T) {
	send := Facts{Role: "button", Name: "Send", Origin: "http://127.0.0.1"}
	sendPay := Facts{Role: "button", Name: "Send payment now and pay", Origin: "http://127.0.0.1"}
	p, err := Authorize(context.Background(), send, &Approvals{}, PreApproved([]string{"send"}, nil))
	if err != nil || p.Source() != "pre_approved:send" {
		t.Fatalf("send pre-approved: %q %v", p.Source(), err)
	}
	var need *NeedsApproval
	if _, err := Authorize(context.Background(), sendPay, &Approvals{}, PreApproved([]string{"send"}, nil)); errcode.Of(err) != errcode.ApprovalRequired || !errors.As(err, &need) {
		t.Fatalf("pay not pre-approved: %v", err)
	}
	if p, err := Authorize(context.Background(), sendPay, &Approvals{}, PreApproved([]string{"send"}, approver(true))); err != nil || p.Source() != SourceApprover {
		t.Fatalf("the next approver: %q %v", p.Source(), err)
	}
	if err := CheckApproveClasses([]string{"send", "transfer"}); errcode.Of(err) != errcode.InvalidArgument {
		t.Fatalf("an unknown class: %v", err)
	}
}
