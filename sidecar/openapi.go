package sidecar

import _ "embed"

// openAPIDocument is the OpenAPI 3.1 description of the HTTP API, served
// verbatim at /v1/openapi.json. The tests check every response of the
// server's own tests against it.
//
//go:embed openapi.json
var openAPIDocument []byte
