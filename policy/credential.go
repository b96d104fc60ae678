package policy

import (
	"regexp"
	"strings"
)

// CredentialWords name a password, PIN, secret, token or card security
// code in the languages of the consequential classifier (English, Spanish,
// French, German, Portuguese, Arabic, Hindi); a field whose name or label
// holds one as whole words (a phrase: its words in a row) is a credential
// field and its value is never read. They are lower case, words split as
// SaysCredential splits them. The in-page collector receives this list.
var CredentialWords = []string{
	// English
	"password", "passwd", "passcode", "passphrase", "pin", "secret", "token", "cvv", "cvv2", "cvc", "csc",
	"security code", "one time code", "otp",
	// Spanish
	"contraseña", "clave", "secreto", "código de seguridad",
	// French
	"mot de passe", "code secret", "jeton", "cryptogramme",
	// German
	"passwort", "kennwort", "geheimnis", "geheimzahl", "sicherheitscode",
	// Portuguese
	"senha", "segredo", "código de segurança",
	// Arabic
	"كلمة المرور", "كلمة السر", "الرمز السري", "رمز سري", "سري",
	// Hindi
	"पासवर्ड", "पिन", "गुप्त", "टोकन",
}

// CredentialSpaceless are those words in scripts written without spaces
// between words (Chinese, Japanese): they match anywhere in a name.
var CredentialSpaceless = []string{
	// Chinese
	"密码", "口令", "密钥", "令牌", "验证码", "安全码",
	// Japanese
	"パスワード", "暗証番号", "秘密", "トークン", "セキュリティコード",
}

var (
	camelBoundary = regexp.MustCompile(`(\p{Ll})(\p{Lu})`)
	credentialSet = func() map[string]bool {
		m := make(map[string]bool, len(CredentialWords))
		for _, w := range CredentialWords {
			m[w] = true
		}
		return m
	}()
)

// SaysCredential reports whether s (a field's accessible name, its name or
// id attribute) names a credential: a CredentialWords phrase as whole
// words, camelCase and snake_case split ("userPassword", "card_pin"), or a
// CredentialSpaceless word anywhere. "Spinner" and "Pinned" do not match.
// The collector applies the same rule in the page (values.js).
func SaysCredential(s string) bool {
	for _, w := range CredentialSpaceless {
		if strings.Contains(s, w) {
			return true
		}
	}
	words := wordSplit.Split(strings.ToLower(camelBoundary.ReplaceAllString(s, "$1 $2")), -1)
	n := 0
	for _, w := range words {
		if w != "" {
			words[n] = w
			n++
		}
	}
	words = words[:n]
	for i := range words {
		// Phrases are at most four words long.
		for j := i + 1; j <= min(i+4, len(words)); j++ {
			if credentialSet[strings.Join(words[i:j], " ")] {
				return true
			}
		}
	}
	return false
}
