package collect

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/veetbot/veetbrowser/observation"
)

// hostileLabel is a label a page chose: it must stay one JSON string
// argument, whatever it holds.
const hostileLabel = "x\"); alert(1); (\"</script>\u2028\u2029\\"

// TestCallExpressions checks that every call is the collector's exposed
// function applied to one JSON argument that decodes back to the request.
func TestCallExpressions(t *testing.T) {
	target := Target{Revision: "v1abc", Index: 7, Doc: "d1"}
	guard := GuardRequest{Target: target, Pointer: true, Editable: true}
	option := OptionRequest{Target: target, Label: hostileLabel}
	arm := ArmRequest{Target: target, Kind: GuardPointer, X: 0, Y: 12.5}
	typed := TypedRequest{Target: target, Value: hostileLabel}
	observe := Params{Revision: "v2", Doc: "d1", After: &Anchor{Revision: "v1", Index: 3}, MaxVisible: 256, Window: 4096, MaxOffset: 65536, Draft: &Draft{Value: hostileLabel}}
	for _, tc := range []struct {
		expr string
		fn   string
		req  any // nil: called with no argument
	}{
		{Expression(observe), fnObserve, &observe},
		{Inspect(guard), fnInspect, &guard},
		{Prepare(guard), fnPrepare, &guard},
		{Arm(arm), fnArm, &arm},
		{Disarm(), fnDisarm, nil},
		{SelectPlan(option), fnSelectPlan, &option},
		{SelectedIs(option), fnSelectedIs, &option},
		{TypedPlan(typed), fnTypedPlan, &typed},
		{TypedCheck(typed), fnTypedCheck, &typed},
		{SetColor(typed), fnSetColor, &typed},
		{BindDraft(target), fnBindDraft, &target},
		{Node(target), fnNode, &target},
		{RetainedNodes(), fnRetainedNodes, nil},
	} {
		prefix := "globalThis.__veetbrowser." + tc.fn + "("
		if !strings.HasPrefix(tc.expr, prefix) || !strings.HasSuffix(tc.expr, ")") {
			t.Errorf("%s: expression %q is not a call of the collector's %s", tc.fn, tc.expr, tc.fn)
			continue
		}
		arg := strings.TrimSuffix(strings.TrimPrefix(tc.expr, prefix), ")")
		if tc.req == nil {
			if arg != "" {
				t.Errorf("%s: called with %q, want no argument", tc.fn, arg)
			}
			continue
		}
		// One JSON object, nothing around it, and the same request back.
		back := reflect.New(reflect.TypeOf(tc.req).Elem())
		dec := json.NewDecoder(strings.NewReader(arg))
		dec.DisallowUnknownFields()
		if err := dec.Decode(back.Interface()); err != nil || dec.More() || !strings.HasPrefix(arg, "{") {
			t.Errorf("%s: argument %q is not one JSON object of the request: %v", tc.fn, arg, err)
			continue
		}
		if !reflect.DeepEqual(back.Interface(), tc.req) {
			t.Errorf("%s: argument decodes to %+v, want %+v", tc.fn, back.Elem(), tc.req)
		}
		// A JavaScript line terminator inside a string literal would end
		// the expression early in older engines: JSON must escape it.
		if strings.ContainsAny(arg, "\u2028\u2029\n") {
			t.Errorf("%s: argument %q holds a raw line terminator", tc.fn, arg)
		}
	}
}

// TestCallsAreExposed checks that the collector exposes every function a
// call names, so that a renamed function cannot leave Go calling nothing.
func TestCallsAreExposed(t *testing.T) {
	i := strings.Index(Script, "Object.defineProperty(globalThis, '__veetbrowser'")
	if i < 0 {
		t.Fatal("the script defines no globalThis.__veetbrowser")
	}
	exposed := Script[i:]
	if end := strings.Index(exposed, "});"); end > 0 {
		exposed = exposed[:end]
	}
	for _, fn := range []string{fnObserve, fnInspect, fnPrepare, fnArm, fnDisarm, fnSelectPlan, fnSelectedIs, fnTypedPlan, fnTypedCheck, fnSetColor, fnBindDraft, fnNode, fnRetainedNodes} {
		if !regexp.MustCompile(`\b` + fn + `\b`).MatchString(exposed) {
			t.Errorf("the collector does not expose %s", fn)
		}
	}
}

// garbage is what no call answers: not JSON, JSON of another kind, and an
// object with a field no answer has.
var garbage = []string{``, `nul`, `null`, `[]`, `[{}]`, `1`, `"ok"`, `{`, `{"facts":`, `{"bogus":1}`, `{} {}`}

// TestDecodersRejectGarbage runs every decoder on what its call answers
// (accepted) and on garbage and answers outside the call's contract
// (refused).
func TestDecodersRejectGarbage(t *testing.T) {
	facts := `{"role":"button","name":"Send","name_cut":false,"form":"","in_form":true,"submit":true,"file":false,"editable":false,"checked":false,"origin":"http://127.0.0.1"}`
	for _, tc := range []struct {
		name   string
		decode func([]byte) error
		good   []string
		bad    []string
	}{
		{"inspect", func(b []byte) error { _, err := DecodeInspect(b); return err },
			[]string{`{"facts":` + facts + `}`, `{"error":"stale"}`, `{"error":"hidden","facts":` + facts + `}`, `{"error":"document_changed"}`, `{"error":"not_editable","facts":` + facts + `}`},
			[]string{`{}`, `{"error":"covered","facts":` + facts + `}`, `{"error":"unheard_of"}`, `{"facts":{"role":1}}`, `{"facts":{"rolle":"button"}}`,
				`{"facts":{"name":"` + strings.Repeat("a", 8193) + `"}}`}},
		{"prepare", func(b []byte) error { _, err := DecodePrepare(b); return err },
			[]string{`{"facts":` + facts + `,"x":10.5,"y":20}`, `{"error":"covered","facts":` + facts + `}`, `{"error":"unfocusable","facts":` + facts + `}`},
			[]string{`{"x":1,"y":2}`, `{"error":"too_far"}`, `{"facts":` + facts + `,"x":"10"}`}},
		{"arm", func(b []byte) error { _, err := DecodeArm(b); return err },
			[]string{`{"ok":true}`, `{"error":"detached"}`, `{"error":"covered"}`, `{"error":"unfocusable"}`},
			[]string{`{}`, `{"ok":false}`, `{"ok":true,"error":"covered"}`, `{"error":"hidden"}`, `{"ok":"yes"}`}},
		{"disarm", func(b []byte) error { _, err := DecodeDisarm(b); return err },
			[]string{`{"hits":0,"confirmed":0,"blocked":0}`, `{"hits":3,"confirmed":1,"blocked":2}`, `{"unarmed":true,"hits":0,"confirmed":0,"blocked":0}`},
			[]string{`{"hits":-1,"confirmed":0,"blocked":0}`, `{"hits":0,"confirmed":1,"blocked":0}`, `{"hits":1.5}`, `{"unarmed":true,"hits":1,"confirmed":1,"blocked":0}`}},
		{"selectPlan", func(b []byte) error { _, err := DecodeSelectPlan(b); return err },
			[]string{`{"keys":[]}`, `{"keys":["Home","ArrowDown","ArrowDown"]}`, `{"keys":["ArrowUp","End"]}`, `{"type":"Option 250"}`,
				`{"error":"no_option"}`, `{"error":"multiple"}`, `{"error":"too_far"}`, `{"error":"not_select"}`, `{"error":"disabled"}`, `{"error":"detached"}`,
				`{"keys":["Home"` + strings.Repeat(`,"ArrowDown"`, observation.MaxSelectKeys) + `]}`,
				`{"type":"` + strings.Repeat("a", observation.MaxTypeAheadUnits) + `"}`},
			[]string{`{}`, `{"keys":null}`, `{"keys":["Enter"]}`, `{"keys":["Home"],"type":"a"}`, `{"error":"no_option","keys":[]}`, `{"error":"stale"}`,
				`{"keys":["Home"` + strings.Repeat(`,"ArrowDown"`, observation.MaxSelectKeys+1) + `]}`,
				`{"type":"` + strings.Repeat("a", observation.MaxTypeAheadUnits+1) + `"}`}},
		{"typedPlan", func(b []byte) error { _, err := DecodeTypedPlan(b); return err },
			[]string{`{"kind":"date","fields":["month","day","year"]}`, `{"kind":"time","fields":["hour","minute","second","dayPeriod"]}`,
				`{"kind":"range","keys":["Home","ArrowRight"]}`, `{"error":"no_value","kind":"range"}`, `{"error":"too_far","kind":"range"}`, `{"error":"detached"}`,
				`{"kind":"range","keys":["End"` + strings.Repeat(`,"ArrowLeft"`, observation.MaxSelectKeys) + `]}`},
			[]string{`{}`, `{"kind":"date","fields":["era"]}`, `{"kind":"range","keys":["Enter"]}`, `{"kind":"date","fields":["year"],"keys":["Home"]}`,
				`{"error":"stale"}`, `{"kind":"time","fields":["hour"],"am":"A"}`, `{"kind":"time","fields":["millisecond"]}`,
				`{"kind":"range","keys":["End"` + strings.Repeat(`,"ArrowLeft"`, observation.MaxSelectKeys+1) + `]}`}},
		{"typedCheck", func(b []byte) error { _, err := DecodeTypedCheck(b); return err },
			[]string{`"typed"`, `"changed"`, `"cut"`, `"gone"`},
			[]string{`"match"`, `true`, `{}`}},
		{"selectedIs", func(b []byte) error { _, err := DecodeSelectedIs(b); return err },
			[]string{`true`, `false`},
			[]string{`{}`, `"true"`}},
		{"bindDraft", func(b []byte) error { _, err := DecodeBindDraft(b); return err },
			[]string{`{"ok":false}`, `{"ok":true,"same":false}`, `{"ok":true,"same":true}`},
			[]string{`{"ok":false,"same":true}`, `{"ok":1}`}},
		{"observe", func(b []byte) error { _, err := Decode(b); return err },
			[]string{`{"error":"anchor_unknown","doc":"d1"}`, `{"error":"anchor_moved","doc":"d1"}`, `{"error":"document_changed","doc":"d2"}`},
			[]string{`{"error":"stale","doc":"d1"}`, `{"error":"bogus"}`}},
	} {
		for _, raw := range tc.good {
			if err := tc.decode([]byte(raw)); err != nil {
				t.Errorf("%s: %.80s refused: %v", tc.name, raw, err)
			}
		}
		bad := tc.bad
		if tc.name != "observe" { // Decode has its own tests of shape
			bad = append(bad, garbage...)
		} else {
			bad = append(bad, ``, `{`, `[]`, `"x"`)
		}
		for _, raw := range bad {
			if err := tc.decode([]byte(raw)); err == nil {
				t.Errorf("%s: %.80s accepted", tc.name, raw)
			}
		}
	}
}

// TestDecodeDraftVerdicts: the observation takes only a known verdict of
// the draft check.
func TestDecodeDraftVerdicts(t *testing.T) {
	for _, v := range draftVerdicts {
		r := valid()
		r.Draft = v
		if err := decode(t, r); err != nil {
			t.Errorf("verdict %q refused: %v", v, err)
		}
	}
	r := valid()
	r.Draft = "matches"
	if err := decode(t, r); err == nil {
		t.Error("an unknown verdict accepted")
	}
}

// TestPrepareAdmitsInspectRefusals: prepare runs inspect's guards first,
// so it may answer with any of their refusals.
func TestPrepareAdmitsInspectRefusals(t *testing.T) {
	for _, r := range inspectRefusals {
		if !slices.Contains(prepareRefusals, r) {
			t.Errorf("prepare does not admit inspect's refusal %s", r)
		}
	}
}
