package sidecar

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/policy"
	"github.com/veetbot/veetbrowser/sidecar/api"
)

// status is the HTTP status of a failure's code.
func status(c errcode.Code) int {
	switch c {
	case errcode.InvalidArgument:
		return http.StatusBadRequest
	case errcode.Unauthorized:
		return http.StatusUnauthorized
	case errcode.NotFound:
		return http.StatusNotFound
	case errcode.LeaseRequired, errcode.LeaseHeld:
		return http.StatusConflict
	case errcode.LeaseExpired:
		return http.StatusGone
	case errcode.TooLarge:
		return http.StatusRequestEntityTooLarge
	case errcode.BrowserUnavailable, errcode.ArtifactUnavailable, errcode.Timeout, errcode.Cancelled,
		errcode.TooManySessions, errcode.Internal:
		return http.StatusServiceUnavailable
	}
	// What a page or a tool refused: the request was understood.
	return http.StatusUnprocessableEntity
}

func failure(err error) (int, api.ErrorBody) {
	code, msg := errcode.Public(err)
	d := api.ErrorDetail{Code: code, Message: msg}
	var need *policy.NeedsApproval
	if code == errcode.ApprovalRequired && errors.As(err, &need) {
		d.Facts = &need.Facts
	}
	return status(code), api.ErrorBody{Error: d}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusServiceUnavailable, []byte(`{"error":{"code":"internal","message":"the response could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
