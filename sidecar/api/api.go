// Package api holds the wire types of the sidecar's HTTP API (/v1),
// shared by the server (package sidecar) and its client (package hosted);
// sidecar/openapi.json describes the same shapes.
package api

import (
	"encoding/json"
	"time"

	veetbrowser "github.com/veetbot/veetbrowser"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
	"github.com/veetbot/veetbrowser/policy"
)

// Lease TTL bounds, in seconds.
const (
	MinTTL     = 5
	MaxTTL     = 3600
	DefaultTTL = 60
)

// Upload bounds of one request: the runtime's own limits of one upload
// (its files, each file) and of the copies a session keeps (the body).
const (
	MaxUploadFiles = veetbrowser.DefaultMaxUploadFiles
	MaxUploadFile  = veetbrowser.DefaultMaxUpload
	MaxUploadBody  = veetbrowser.DefaultMaxUploadKept
)

// Grant is a lease's task grant (policy.Grant): the origins it may act on
// and the action classes it may perform; empty lists allow all.
type Grant struct {
	Origins []string `json:"origins,omitempty"`
	Classes []string `json:"classes,omitempty"`
	// ReadValues is policy.Grant.ReadValues: field values on request.
	ReadValues bool `json:"read_values,omitempty"`
	// Contain is policy.Grant.Contain: every request held to the origins
	// and Resources (tool version 1.9.0).
	Contain   bool     `json:"contain,omitempty"`
	Resources []string `json:"resources,omitempty"`
}

// LeaseRequest is POST /v1/leases.
type LeaseRequest struct {
	Profile    string `json:"profile"`
	TTLSeconds int    `json:"ttl_seconds,omitempty"`
	Version    string `json:"version,omitempty"`
	Budget     int    `json:"budget,omitempty"`
	Grant      *Grant `json:"grant,omitempty"`
}

// RenewRequest is POST /v1/leases/{id}/renew.
type RenewRequest struct {
	TTLSeconds int `json:"ttl_seconds,omitempty"`
}

// Lease is a live lease as the API shows it.
type Lease struct {
	ID         string    `json:"id"`
	Profile    string    `json:"profile"`
	ExpiresAt  time.Time `json:"expires_at"`
	TTLSeconds int       `json:"ttl_seconds"`
}

// LeaseResponse answers an acquire or a renew.
type LeaseResponse struct {
	Lease   Lease  `json:"lease"`
	Version string `json:"version,omitempty"` // the tool version the lease's session is pinned to
}

// Profile is one of a tenant's profiles.
type Profile struct {
	Name   string `json:"name"`
	Leased bool   `json:"leased,omitempty"` // a live lease of this process holds it
}

// Profiles answers GET /v1/profiles.
type Profiles struct {
	Tenant   string    `json:"tenant"` // the token's tenant: a client checks which tenant it acts for
	Profiles []Profile `json:"profiles"`
}

// Tool is one browser tool of a lease's version.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	ReadOnly    bool            `json:"read_only"`
	Destructive bool            `json:"destructive"`
}

// Tools answers GET /v1/leases/{id}/tools.
type Tools struct {
	Version string `json:"version"`
	Tools   []Tool `json:"tools"`
}

// PageResult answers every page route: the model view byte for byte as
// the library returns it, the canonical observation whole, and an act's or
// upload's postconditions.
type PageResult struct {
	View        json.RawMessage          `json:"view"`
	Observation *observation.Observation `json:"observation,omitempty"` // absent with ?observation=omit
	Action      *browser.ActResult       `json:"action,omitempty"`
	Image       *Image                   `json:"image,omitempty"` // browser_screenshot's
	// Log is browser_console's or browser_network's read (1.10.0); absent
	// with ?observation=omit.
	Log *observation.Log `json:"log,omitempty"`
}

// Image is a screenshot in a PageResult; Data is base64 in JSON.
type Image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// OmitObservation is the value of a page route's observation query
// parameter that leaves the canonical observation out of the answer: for
// a client that only passes the view on (an MCP surface). The sidecar
// records it all the same.
const OmitObservation = "omit"

// Approval is POST /v1/leases/{id}/approvals: one single-use approval the
// user gave for exactly these facts.
type Approval struct {
	Facts policy.Facts `json:"facts"`
}

// ErrorBody is every failure's body.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the stable code and the public message; approval_required
// adds the facts the user's approval must name.
type ErrorDetail struct {
	Code    errcode.Code  `json:"code"`
	Message string        `json:"message"`
	Facts   *policy.Facts `json:"facts,omitempty"`
}
