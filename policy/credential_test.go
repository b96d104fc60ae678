package policy

import "testing"

func TestSaysCredential(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Password", true},
		{"Confirm your password:", true},
		{"userPassword", true},   // camelCase split
		{"api_token", true},      // snake_case split
		{"Card PIN", true},       // a whole word
		{"CVV", true},            //
		{"Security code", true},  // a phrase
		{"Mot de passe", true},   // French phrase
		{"Contraseña", true},     // Spanish
		{"Kennwort", true},       // German
		{"Senha atual", true},    // Portuguese
		{"كلمة المرور", true},    // Arabic phrase
		{"पासवर्ड", true},        // Hindi
		{"登录密码", true},           // Chinese, inside a name
		{"新しいパスワード", true},       // Japanese, inside a name
		{"Spinner speed", false}, // "pin" only as a whole word
		{"Pinned posts", false},
		{"Shipping address", false},
		{"Passage", false},
		{"Mot du jour", false}, // one word of a phrase is not the phrase
		{"Code postal", false},
		{"", false},
	} {
		if got := SaysCredential(tc.s); got != tc.want {
			t.Errorf("SaysCredential(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
