package sidecar

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
)

// A token file holds one line per token: the tenant's name and the SHA-256
// of the token ("sha256:" and 64 hex digits), never the token itself. Blank
// lines and lines starting with # are ignored. NewToken makes a token and
// its line.
//
//	# tenant   token hash
//	acme       sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08

// Tokens are the bearer tokens a sidecar accepts, each bound to a tenant.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	tenant string
	hash   [sha256.Size]byte
}

// tenantName is what a tenant and a profile may be called: it is a
// directory name under --data, so nothing that could walk out of it.
var tenantName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

func validName(s string) bool { return tenantName.MatchString(s) && !strings.Contains(s, "..") }

// ParseTokens reads a token file. A malformed line is an error naming its
// number, never its content (it could hold a token pasted by mistake).
func ParseTokens(r io.Reader) (Tokens, error) {
	var t Tokens
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 || !validName(fields[0]) || !strings.HasPrefix(fields[1], "sha256:") {
			return Tokens{}, errcode.New(errcode.InvalidArgument, "token file line %d: want a tenant name and sha256:HEX", n)
		}
		sum, err := hex.DecodeString(strings.TrimPrefix(fields[1], "sha256:"))
		if err != nil || len(sum) != sha256.Size {
			return Tokens{}, errcode.New(errcode.InvalidArgument, "token file line %d: the hash is not 64 hex digits", n)
		}
		e := tokenEntry{tenant: fields[0]}
		copy(e.hash[:], sum)
		for _, o := range t.entries {
			if o.hash == e.hash {
				return Tokens{}, errcode.New(errcode.InvalidArgument, "token file line %d: the same token is on an earlier line", n)
			}
		}
		t.entries = append(t.entries, e)
	}
	if err := sc.Err(); err != nil {
		return Tokens{}, errcode.Wrap(errcode.InvalidArgument, err, "the token file could not be read")
	}
	if len(t.entries) == 0 {
		return Tokens{}, errcode.New(errcode.InvalidArgument, "the token file holds no token")
	}
	return t, nil
}

// NewToken returns a fresh random token for tenant and the line of the
// token file that accepts it.
func NewToken(tenant string) (token, line string, err error) {
	if !validName(tenant) {
		return "", "", errcode.New(errcode.InvalidArgument, "a tenant name is 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or digit")
	}
	b := make([]byte, 32)
	rand.Read(b)
	token = "vbt_" + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, fmt.Sprintf("%s sha256:%x", tenant, sum), nil
}

// tenant returns the tenant of a request's bearer token. Every entry is
// compared, in constant time, whatever matched: the time taken says
// nothing about which token, or how much of one, was right. A token in the
// query string is refused outright: URLs end up in logs.
func (t Tokens) tenant(r *http.Request) (string, error) {
	q := r.URL.Query()
	for _, k := range []string{"token", "access_token", "bearer"} {
		if q.Has(k) {
			return "", errcode.New(errcode.Unauthorized, "a token belongs in the Authorization header, never in the URL")
		}
	}
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", errcode.New(errcode.Unauthorized, "send Authorization: Bearer TOKEN")
	}
	sum := sha256.Sum256([]byte(token))
	tenant := ""
	for _, e := range t.entries {
		if subtle.ConstantTimeCompare(sum[:], e.hash[:]) == 1 {
			tenant = e.tenant
		}
	}
	if tenant == "" {
		return "", errcode.New(errcode.Unauthorized, "the token is not valid")
	}
	return tenant, nil
}
