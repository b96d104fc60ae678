package collect

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/veetbot/veetbrowser/policy"
)

// TestCredentialWordsAsPolicySaysThem: the page's saysCredential judges
// names exactly as policy.SaysCredential does, on words of every list
// entry and on near misses, so the one list means one thing on both sides.
func TestCredentialWordsAsPolicySaysThem(t *testing.T) {
	t.Parallel()
	ctx := openPage(t, assemble(testTail))
	cases := []string{"userPassword", "api_token", "Card PIN", "Spinner speed", "Pinned", "Mot du jour",
		"Code postal", "登录密码", "新しいパスワード", "CÓDIGO DE SEGURIDAD", "", "Passage", "one-time code"}
	for _, w := range policy.CredentialWords {
		cases = append(cases, "Your "+w+":", w+"s")
	}
	for _, w := range policy.CredentialSpaceless {
		cases = append(cases, "新"+w)
	}
	for _, s := range cases {
		q, _ := json.Marshal(s)
		var got bool
		evaluate(t, ctx, fmt.Sprintf("globalThis.__collectTest.saysCredential(%s)", q), &got)
		if want := policy.SaysCredential(s); got != want {
			t.Errorf("page saysCredential(%q) = %v, policy says %v", s, got, want)
		}
	}
}
