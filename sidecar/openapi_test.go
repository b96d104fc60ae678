package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/tools"
)

// openAPI is the document loaded, validated and routed once per test binary:
// many parallel tests check their exchanges against it.
var openAPI = sync.OnceValues(func() (*openAPIDoc, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDocument)
	if err != nil {
		return nil, fmt.Errorf("openapi.json does not load: %w", err)
	}
	// Validate knows a 3.1 document by its version and checks it as one;
	// openapi3filter then validates bodies with JSON Schema 2020-12.
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.json cannot be routed: %w", err)
	}
	return &openAPIDoc{doc: doc, router: router}, nil
})

type openAPIDoc struct {
	doc    *openapi3.T
	router routers.Router
}

// openAPIOptions validate an exchange as the API promises it: every status
// documented, no body where none is described, and a request's body as sent
// (no defaults filled in).
var openAPIOptions = &openapi3filter.Options{
	AuthenticationFunc:                bearerPresent,
	IncludeResponseStatus:             true,
	RejectWhenRequestBodyNotSpecified: true,
	SkipSettingDefaults:               true,
}

// bearerPresent accepts the document's one security scheme when the request
// carries a bearer token in its Authorization header; whether the token is
// right is the server's business.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if s := in.SecurityScheme; s.Type != "http" || !strings.EqualFold(s.Scheme, "bearer") {
		return fmt.Errorf("unexpected security scheme %q", in.SecuritySchemeName)
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return errors.New("no bearer token in the Authorization header")
	}
	return nil
}

// checkAgainstDoc validates one request and its response against the document: the route and method
// exist, the request body matches, the status is documented for that route, and the body matches its schema.
//
// A request the document refuses (a bad body, no token) must be answered
// with an error status (4xx); a request answered with a success must match
// the document. req's own body is not read: reqBody is the body it was sent
// with. header is the response's header (its Content-Type selects the
// schema).
func checkAgainstDoc(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) {
	t.Helper()
	d, err := openAPI()
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	ctx := context.Background()
	r := req.Clone(ctx)
	r.Body, r.ContentLength, r.GetBody = http.NoBody, 0, nil
	if len(reqBody) > 0 {
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(reqBody)), int64(len(reqBody))
	}
	what := req.Method + " " + req.URL.Path
	route, params, err := d.router.FindRoute(r)
	if err != nil {
		t.Errorf("%s: not in openapi.json: %v", what, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: openAPIOptions}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && (status < 400 || status > 499) {
		t.Errorf("%s: openapi.json refuses the request, yet it was answered %d: %v", what, status, err)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                openAPIOptions,
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s → %d: the response does not match openapi.json: %v\nbody: %s", what, status, err, shortBody(respBody))
		return
	}
	// ValidateResponse does not look at a body the document does not
	// describe: a response documented without one must have none.
	if resp := route.Operation.Responses.Status(status); resp != nil && resp.Value != nil && len(resp.Value.Content) == 0 && len(respBody) > 0 {
		t.Errorf("%s → %d: openapi.json documents no body, yet the response has %d bytes: %s", what, status, len(respBody), shortBody(respBody))
	}
}

func shortBody(b []byte) string {
	const max = 512
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	d, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !d.doc.IsOpenAPI31OrLater() || d.doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", d.doc.OpenAPI)
	}
	// The routes of the API, each once: a route missing from the document
	// (or one it invents) fails here, not in a client.
	want := []string{
		"GET /healthz", "GET /metrics", "GET /v1/openapi.json",
		"GET /v1/profiles", "PUT /v1/profiles/{name}", "DELETE /v1/profiles/{name}",
		"POST /v1/leases", "DELETE /v1/leases/{id}", "POST /v1/leases/{id}/renew", "GET /v1/leases/{id}/tools",
		"POST /v1/leases/{id}/navigate", "POST /v1/leases/{id}/observe", "POST /v1/leases/{id}/act",
		"POST /v1/leases/{id}/find", "POST /v1/leases/{id}/upload", "POST /v1/leases/{id}/approvals",
		"POST /v1/leases/{id}/wait", "POST /v1/leases/{id}/tabs", "POST /v1/leases/{id}/screenshot",
		"POST /v1/leases/{id}/console", "POST /v1/leases/{id}/network", "POST /v1/leases/{id}/emulate",
		"POST /v1/leases/{id}/downloads",
		"POST /v1/control/login",
	}
	unauthenticated := []string{"GET /healthz", "GET /metrics", "GET /v1/openapi.json"}
	var got []string
	operationIDs := map[string]bool{}
	for path, item := range d.doc.Paths.Map() {
		for method, op := range item.Operations() {
			route := method + " " + path
			got = append(got, route)
			if op.OperationID == "" || operationIDs[op.OperationID] {
				t.Errorf("%s: operationId %q is empty or not unique", route, op.OperationID)
			}
			operationIDs[op.OperationID] = true
			open := op.Security != nil && len(*op.Security) == 0
			if open != slices.Contains(unauthenticated, route) {
				t.Errorf("%s: without authentication = %v", route, open)
			}
			if !open && (op.Responses.Status(401) == nil || op.Responses.Status(503) == nil) {
				t.Errorf("%s: an authenticated route must document 401 and 503", route)
			}
			if strings.HasPrefix(path, "/v1/leases/{id}") && op.Responses.Status(409) == nil {
				t.Errorf("%s: a route on a lease must document 409 lease_required", route)
			}
			if op.RequestBody != nil && (op.Responses.Status(400) == nil || op.Responses.Status(413) == nil) {
				t.Errorf("%s: a route with a body must document 400 and 413", route)
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("routes in openapi.json:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(d.doc.Security) != 1 || d.doc.Security[0]["bearer"] == nil {
		t.Errorf("global security = %v, want the bearer scheme", d.doc.Security)
	}
}

// rawOpenAPI is the document as plain JSON, for comparing its schemas with
// the Go definitions they describe.
func rawOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at walks a decoded JSON document along keys.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for i, k := range keys {
		m, ok := v.(map[string]any)
		if !ok || m[k] == nil {
			t.Fatalf("openapi.json has no %s", strings.Join(keys[:i+1], "."))
		}
		v = m[k]
	}
	return v
}

func stringsOf(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%v is not a list", v)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i], ok = e.(string)
		if !ok {
			t.Fatalf("%v is not a string", e)
		}
	}
	return out
}

func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stringConsts returns the values of the string constants of a Go file
// declared with type typ (or, with typ "", those whose name starts with
// prefix).
func stringConsts(t *testing.T, file, typ, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			ident, _ := vs.Type.(*ast.Ident)
			if typ != "" && (ident == nil || ident.Name != typ) {
				continue
			}
			for i, name := range vs.Names {
				if typ == "" && !strings.HasPrefix(name.Name, prefix) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: %s is not a string literal", file, name.Name)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestOpenAPIErrorCodes: the document's error codes are exactly package
// errcode's, and each belongs to one error response, used under one status
// only, the status the server gives the code: the status a client sees
// tells the class of failure.
func TestOpenAPIErrorCodes(t *testing.T) {
	doc := rawOpenAPI(t)
	codes := stringConsts(t, "../errcode/errcode.go", "Code", "")
	if len(codes) == 0 {
		t.Fatal("no errcode.Code constants found")
	}
	enum := stringsOf(t, at(t, doc, "components", "schemas", "ErrorCode", "enum"))
	sort.Strings(enum)
	if !slices.Equal(enum, codes) {
		t.Errorf("ErrorCode enum:\n%v\nerrcode.Code constants:\n%v", enum, codes)
	}

	// The error responses partition the codes.
	owner := map[string]string{}
	responses := at(t, doc, "components", "responses").(map[string]any)
	for name := range responses {
		content, ok := responses[name].(map[string]any)["content"].(map[string]any)
		if !ok {
			continue
		}
		schema := at(t, content, "application/json", "schema").(map[string]any)
		if _, isError := schema["allOf"]; !isError {
			continue
		}
		if got := schema["allOf"].([]any)[0].(map[string]any)["$ref"]; got != "#/components/schemas/Error" {
			t.Errorf("response %s: allOf %v, want the Error schema first", name, got)
		}
		for _, code := range stringsOf(t, at(t, schema, "properties", "error", "properties", "code", "enum")) {
			if prev, dup := owner[code]; dup {
				t.Errorf("code %s is in responses %s and %s", code, prev, name)
			}
			owner[code] = name
		}
	}
	if got := keysOf(anyMap(owner)); !slices.Equal(got, codes) {
		t.Errorf("codes of the error responses:\n%v\nwant every errcode.Code:\n%v", got, codes)
	}

	// Each error response is used under one status everywhere.
	statusOf := map[string]string{}
	for path, item := range at(t, doc, "paths").(map[string]any) {
		for method, op := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			for status, resp := range at(t, op, "responses").(map[string]any) {
				ref, _ := resp.(map[string]any)["$ref"].(string)
				name, ok := strings.CutPrefix(ref, "#/components/responses/")
				if !ok || name == "PageResult" {
					continue
				}
				if prev, seen := statusOf[name]; seen && prev != status {
					t.Errorf("%s %s: response %s under %s, elsewhere under %s", method, path, name, status, prev)
				}
				statusOf[name] = status
			}
		}
	}
	for code, name := range owner {
		if statusOf[name] == "" {
			t.Errorf("error response %s is used by no route", name)
		}
		// The server answers each code with the status the document gives it.
		if got := strconv.Itoa(status(errcode.Code(code))); got != statusOf[name] {
			t.Errorf("code %s: the server answers %s, openapi.json documents it under %s", code, got, statusOf[name])
		}
	}
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// jsonNames are the JSON field names of a struct type, as encoding/json
// writes them.
func jsonNames(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// withoutDescriptions is a decoded JSON schema without its description
// keywords.
func withoutDescriptions(schema any) any {
	switch s := schema.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range s {
			if k != "description" {
				out[k] = withoutDescriptions(v)
			}
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = withoutDescriptions(v)
		}
		return out
	}
	return schema
}

// TestOpenAPIMatchesGoDefinitions: the schemas that restate a Go definition
// say what it says: the tools' arguments, the registered tool versions and
// names, the grant's action classes, the approval facts and an action's
// postconditions.
func TestOpenAPIMatchesGoDefinitions(t *testing.T) {
	doc := rawOpenAPI(t)
	schemas := at(t, doc, "components", "schemas").(map[string]any)

	// navigate, act and find take exactly the newest version's arguments.
	newest := map[string]json.RawMessage{}
	for _, tool := range tools.Tools(tools.Newest()) {
		newest[tool.Name] = tool.InputSchema
	}
	for schema, tool := range map[string]string{"NavigateArguments": tools.Navigate, "ActArguments": tools.Act, "FindArguments": tools.Find} {
		var want any
		if err := json.Unmarshal(newest[tool], &want); err != nil {
			t.Fatal(err)
		}
		// The document describes each argument in full; 1.9.0's tool list,
		// written for a model, briefly: they agree on all else.
		if got := schemas[schema]; !reflect.DeepEqual(withoutDescriptions(got), withoutDescriptions(want)) {
			t.Errorf("%s = %v\nwant %s's input schema %v", schema, got, tool, want)
		}
	}
	// observe takes the union of every version's arguments.
	observe := at(t, schemas, "ObserveArguments", "properties").(map[string]any)
	union := map[string]any{}
	var versions, names []string
	for _, v := range tools.Versions {
		versions = append(versions, v.Name)
		for _, tool := range tools.Tools(v) {
			if !slices.Contains(names, tool.Name) {
				names = append(names, tool.Name)
			}
			if tool.Name != tools.Observe {
				continue
			}
			var s struct{ Properties map[string]any }
			if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			for k, p := range s.Properties {
				union[k] = p
				if got, _ := observe[k].(map[string]any); got == nil || got["type"] != p.(map[string]any)["type"] {
					t.Errorf("ObserveArguments.%s: %v; %s says %v", k, observe[k], v.Name, p)
				}
			}
		}
	}
	if got, want := keysOf(observe), keysOf(union); !slices.Equal(got, want) {
		t.Errorf("ObserveArguments properties %v, want %v", got, want)
	}
	if got := stringsOf(t, at(t, schemas, "ToolVersion", "enum")); !slices.Equal(got, versions) {
		t.Errorf("ToolVersion enum %v, want the registered versions %v", got, versions)
	}
	toolNames := stringsOf(t, at(t, schemas, "Tools", "properties", "tools", "items", "properties", "name", "enum"))
	sort.Strings(toolNames)
	sort.Strings(names)
	if !slices.Equal(toolNames, names) {
		t.Errorf("tool name enum %v, want %v", toolNames, names)
	}

	classes := stringsOf(t, at(t, schemas, "Grant", "properties", "classes", "items", "enum"))
	sort.Strings(classes)
	if want := stringConsts(t, "../policy/policy.go", "", "Class"); !slices.Equal(classes, want) {
		t.Errorf("grant classes %v, want policy's %v", classes, want)
	}
	for schema, typ := range map[string]reflect.Type{
		"Facts":     reflect.TypeFor[policy.Facts](),
		"ActResult": reflect.TypeFor[browser.ActResult](),
	} {
		if got, want := keysOf(at(t, schemas, schema, "properties").(map[string]any)), jsonNames(typ); !slices.Equal(got, want) {
			t.Errorf("%s properties %v, want %s's JSON fields %v", schema, got, typ, want)
		}
	}
}

// TestOpenAPIProfileName: the document's pattern for a profile name is the
// API's rule, ^[a-z0-9][a-z0-9._-]{0,62}$ without "..", written as one
// pattern because kin-openapi cannot decode a path parameter whose schema
// uses "not".
func TestOpenAPIProfileName(t *testing.T) {
	d, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	schema := d.doc.Components.Schemas["ProfileName"].Value
	rule := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	for _, name := range []string{
		"a", "0", "a.b", "a.", "a-", "a_", "a.b.c", "a-.b", "a._b", "x." + strings.Repeat("y", 61), strings.Repeat("a", 63),
		"", ".", "..", ".a", "-a", "_a", "a..b", "a..", "A", "a/b", "a b", "é", strings.Repeat("a", 64), "x." + strings.Repeat("y", 62),
	} {
		want := rule.MatchString(name) && !strings.Contains(name, "..")
		got := schema.VisitJSON(name, openapi3.EnableJSONSchema2020()) == nil
		if got != want {
			t.Errorf("profile name %q: the document accepts it = %v, the rule = %v", name, got, want)
		}
	}
}

// recordingTB keeps what checkAgainstDoc reports instead of failing, so
// that a test can see it refuse.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// uploadBody is a multipart upload body with the given parts: name, file
// name ("" for a plain field), content type and content.
func uploadBody(t *testing.T, parts ...[4]string) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disposition := fmt.Sprintf(`form-data; name=%q`, p[0])
		if p[1] != "" {
			disposition += fmt.Sprintf(`; filename=%q`, p[1])
		}
		h.Set("Content-Disposition", disposition)
		if p[2] != "" {
			h.Set("Content-Type", p[2])
		}
		part, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte(p[3]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), w.FormDataContentType()
}

// TestOpenAPICheckAgainstDoc: the helper the server's tests use accepts the
// exchanges the document describes and refuses each kind of drift.
func TestOpenAPICheckAgainstDoc(t *testing.T) {
	t.Parallel()
	upload, uploadType := uploadBody(t,
		[4]string{"ref", "", "", "e1"},
		[4]string{"file", "a.txt", "application/octet-stream", "hello"},
		[4]string{"file", "b.png", "image/png", "\x89PNG\r\n\x1a\n"},
	)
	stray, strayType := uploadBody(t,
		[4]string{"ref", "", "", "e1"},
		[4]string{"file", "a.txt", "text/plain", "hello"},
		[4]string{"path", "", "", "/etc/passwd"},
	)
	const (
		page      = `{"view":{"revision":"r1"},"observation":{"revision":"r1","controls":[]}}`
		acted     = `{"view":{},"observation":{},"action":{"dispatched":true,"navigation_started":false,"navigation_done":false,"navigation_cancelled":false,"url":"http://127.0.0.1:1/","dialog_opened":false}}`
		facts     = `{"origin":"http://127.0.0.1:1","role":"button","name":"Pay","submit":true}`
		needsOK   = `{"error":{"code":"approval_required","message":"the user must approve","facts":` + facts + `}}`
		leaseBody = `{"lease":{"id":"L1","profile":"a","expires_at":"2030-01-02T03:04:05.123456789Z","ttl_seconds":60},"version":"1.6.0"}`
	)
	jsonType := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name        string
		method      string
		path        string
		token       bool
		contentType string
		body        string
		status      int
		respHeader  http.Header
		resp        string
		refused     bool // checkAgainstDoc must report it
	}{
		{name: "health", method: "GET", path: "/healthz", status: 200, respHeader: jsonType, resp: `{"status":"ok"}`},
		{name: "metrics", method: "GET", path: "/metrics", status: 200,
			respHeader: http.Header{"Content-Type": {"text/plain; version=0.0.4; charset=utf-8"}}, resp: "# HELP x\n"},
		{name: "navigate", method: "POST", path: "/v1/leases/L1/navigate", token: true, body: `{"url":"http://127.0.0.1:1/"}`,
			status: 200, respHeader: jsonType, resp: page},
		{name: "observe without a body", method: "POST", path: "/v1/leases/L1/observe", token: true,
			status: 200, respHeader: jsonType, resp: page},
		{name: "act", method: "POST", path: "/v1/leases/L1/act", token: true, body: `{"kind":"click","ref":"e1"}`,
			status: 200, respHeader: jsonType, resp: acted},
		{name: "upload", method: "POST", path: "/v1/leases/L1/upload", token: true, contentType: uploadType, body: string(upload),
			status: 200, respHeader: jsonType, resp: acted},
		{name: "approval required", method: "POST", path: "/v1/leases/L1/act", token: true, body: `{"kind":"click","ref":"e1"}`,
			status: 422, respHeader: jsonType, resp: needsOK},
		{name: "approval", method: "POST", path: "/v1/leases/L1/approvals", token: true, body: `{"facts":` + facts + `}`, status: 204},
		{name: "lease", method: "POST", path: "/v1/leases", token: true, body: `{"profile":"a","ttl_seconds":60,"grant":{"classes":["click"]}}`,
			status: 201, respHeader: jsonType, resp: leaseBody},
		{name: "create profile", method: "PUT", path: "/v1/profiles/a.b-c_9", token: true, status: 201, respHeader: jsonType, resp: `{"name":"a.b-c_9"}`},
		{name: "profiles", method: "GET", path: "/v1/profiles", token: true, status: 200, respHeader: jsonType,
			resp: `{"tenant":"acme","profiles":[{"name":"a","leased":true},{"name":"b"}]}`},
		{name: "profiles without the tenant", method: "GET", path: "/v1/profiles", token: true, status: 200, respHeader: jsonType,
			resp: `{"profiles":[]}`, refused: true},
		{name: "profile held", method: "DELETE", path: "/v1/profiles/a", token: true, status: 409, respHeader: jsonType,
			resp: `{"error":{"code":"lease_held","message":"held"}}`},
		{name: "renew without a body", method: "POST", path: "/v1/leases/L1/renew", token: true, status: 200, respHeader: jsonType, resp: leaseBody},
		{name: "tools", method: "GET", path: "/v1/leases/L1/tools", token: true, status: 200, respHeader: jsonType,
			resp: `{"version":"1.6.0","tools":[{"name":"browser_find","description":"d","input_schema":{"type":"object"},"read_only":true,"destructive":false}]}`},
		{name: "find on an expired lease", method: "POST", path: "/v1/leases/L1/find", token: true, body: `{"query":"pay"}`,
			status: 410, respHeader: jsonType, resp: `{"error":{"code":"lease_expired","message":"gone"}}`},
		{name: "too many files", method: "POST", path: "/v1/leases/L1/upload", token: true, contentType: uploadType, body: string(upload),
			status: 413, respHeader: jsonType, resp: `{"error":{"code":"too_large","message":"at most 16 files"}}`},
		{name: "no session", method: "POST", path: "/v1/leases", token: true, body: `{"profile":"a"}`,
			status: 503, respHeader: jsonType, resp: `{"error":{"code":"too_many_sessions","message":"full"}}`},
		{name: "no token", method: "GET", path: "/v1/profiles", status: 401, respHeader: jsonType,
			resp: `{"error":{"code":"unauthorized","message":"a bearer token is required"}}`},
		{name: "bad body refused", method: "POST", path: "/v1/leases/L1/navigate", token: true, body: `{"href":"x"}`,
			status: 400, respHeader: jsonType, resp: `{"error":{"code":"invalid_argument","message":"unknown field \"href\""}}`},

		{name: "unknown route", method: "GET", path: "/v1/nothing", token: true, status: 404, refused: true},
		{name: "wrong method", method: "GET", path: "/v1/leases/L1/navigate", token: true, status: 405, refused: true},
		{name: "undocumented status", method: "GET", path: "/v1/profiles", token: true, status: 418, respHeader: jsonType,
			resp: `{"error":{"code":"internal","message":"teapot"}}`, refused: true},
		{name: "code under the wrong status", method: "POST", path: "/v1/leases/L1/navigate", token: true, body: `{"url":"http://127.0.0.1:1/"}`,
			status: 409, respHeader: jsonType, resp: `{"error":{"code":"lease_held","message":"held"}}`, refused: true},
		{name: "approval required without facts", method: "POST", path: "/v1/leases/L1/act", token: true, body: `{"kind":"click","ref":"e1"}`,
			status: 422, respHeader: jsonType, resp: `{"error":{"code":"approval_required","message":"approve"}}`, refused: true},
		{name: "facts on another code", method: "POST", path: "/v1/leases/L1/act", token: true, body: `{"kind":"click","ref":"e1"}`,
			status: 422, respHeader: jsonType, resp: `{"error":{"code":"not_actionable","message":"no","facts":` + facts + `}}`, refused: true},
		{name: "a two-line message", method: "GET", path: "/v1/profiles", token: true, status: 503, respHeader: jsonType,
			resp: `{"error":{"code":"internal","message":"a\nb"}}`, refused: true},
		{name: "refused request answered 200", method: "POST", path: "/v1/leases/L1/navigate", token: true, body: `{"href":"x"}`,
			status: 200, respHeader: jsonType, resp: page, refused: true},
		{name: "no token answered 200", method: "GET", path: "/v1/profiles", status: 200, respHeader: jsonType,
			resp: `{"tenant":"acme","profiles":[]}`, refused: true},
		{name: "stray upload part answered 200", method: "POST", path: "/v1/leases/L1/upload", token: true, contentType: strayType, body: string(stray),
			status: 200, respHeader: jsonType, resp: acted, refused: true},
		{name: "extra field in the page result", method: "POST", path: "/v1/leases/L1/observe", token: true, body: `{}`,
			status: 200, respHeader: jsonType, resp: `{"view":{},"observation":{},"extra":1}`, refused: true},
		{name: "a body on 204", method: "DELETE", path: "/v1/leases/L1", token: true, status: 204, resp: `{}`, refused: true},
		{name: "no content type", method: "GET", path: "/v1/profiles", token: true, status: 200, resp: `{"tenant":"acme","profiles":[]}`, refused: true},
		{name: "bad profile name answered 201", method: "PUT", path: "/v1/profiles/a..b", token: true, status: 201, respHeader: jsonType,
			resp: `{"name":"a..b"}`, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(c.method, "http://127.0.0.1:1"+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.token {
				req.Header.Set("Authorization", "Bearer t0ken")
			}
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			rec := &recordingTB{TB: t}
			checkAgainstDoc(rec, req, []byte(c.body), c.status, c.respHeader, []byte(c.resp))
			if c.refused && len(rec.errors) == 0 {
				t.Errorf("checkAgainstDoc accepted it")
			}
			if !c.refused && len(rec.errors) > 0 {
				t.Errorf("checkAgainstDoc refused it:\n%s", strings.Join(rec.errors, "\n"))
			}
			if testing.Verbose() && c.refused {
				t.Logf("refused: %s", strings.Join(rec.errors, "; "))
			}
		})
	}
}
