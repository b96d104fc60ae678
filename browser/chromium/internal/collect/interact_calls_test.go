package collect

import "testing"

// TestDecodeScrollerAndOutOfView: a guard answer measures a scroller whole
// (height and top) or not at all, only with facts; out_of_view is
// Prepare's refusal, not Inspect's.
func TestDecodeScrollerAndOutOfView(t *testing.T) {
	facts := `{"role":"link","name":"Story","name_cut":false,"form":"","in_form":false,"submit":false,"file":false,"editable":false,"checked":false,"origin":"http://127.0.0.1"}`
	for _, tc := range []struct {
		decode func([]byte) (*GuardResult, error)
		answer string
		ok     bool
	}{
		{DecodeInspect, `{"facts":` + facts + `,"height":300,"top":0}`, true},
		{DecodeInspect, `{"error":"hidden","facts":` + facts + `,"height":300,"top":600}`, true},
		{DecodePrepare, `{"facts":` + facts + `,"x":1,"y":2,"height":900,"top":12.5}`, true},
		{DecodePrepare, `{"error":"out_of_view","facts":` + facts + `}`, true},
		{DecodeInspect, `{"error":"out_of_view","facts":` + facts + `}`, false},
		{DecodeInspect, `{"facts":` + facts + `,"height":300}`, false},
		{DecodeInspect, `{"facts":` + facts + `,"top":300}`, false},
		{DecodeInspect, `{"facts":` + facts + `,"height":-1,"top":0}`, false},
		{DecodeInspect, `{"error":"stale","height":300,"top":0}`, false},
		{DecodePrepare, `{"facts":` + facts + `,"x":1,"y":2,"height":"900","top":0}`, false},
	} {
		r, err := tc.decode([]byte(tc.answer))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %+v %v, want ok %v", tc.answer, r, err, tc.ok)
		}
	}
}
