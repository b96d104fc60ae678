package sidecar

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/veetbot/veetbrowser/browser"
	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/observation"
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
	send(w, status, append(b, '\n'))
}

// send writes a JSON answer whole, with its length (the client reads it
// into one buffer of that size; it is not chunked), and sends it at once:
// it leaves before the request's log line and metrics, so that a slow log
// (a full pipe) delays no answer. Without the flush, an answer shorter
// than the connection's buffer (4 KiB) waited for them.
func send(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
	http.NewResponseController(w).Flush()
}

// pageTail is what follows the view and the observation in an
// api.PageResult, field for field.
type pageTail struct {
	Action *browser.ActResult `json:"action,omitempty"`
	Image  *api.Image         `json:"image,omitempty"`
	Log    *observation.Log   `json:"log,omitempty"`
}

// writePage writes a page call's answer, byte for byte what writeJSON
// writes for the api.PageResult of the same values. The view and the
// observation were written by encoding/json already (compact, HTML
// escaped): they are put in place as they are, instead of being scanned
// and copied again, tens of KiB an observation.
func writePage(w http.ResponseWriter, view, obs json.RawMessage, tail pageTail) {
	rest, err := json.Marshal(tail)
	if err != nil {
		writeJSON(w, http.StatusOK, tail) // writes the encoding failure
		return
	}
	if view == nil {
		view = json.RawMessage("null")
	}
	buf := pageBuffers.Get().(*[]byte)
	defer putPage(buf)
	b := slices.Grow((*buf)[:0], len(view)+len(obs)+len(rest)+32)
	b = append(append(b, `{"view":`...), view...)
	if len(obs) > 0 {
		b = append(append(b, `,"observation":`...), obs...)
	}
	if len(rest) > len("{}") {
		b = append(append(b, ','), rest[1:]...)
	} else {
		b = append(b, '}')
	}
	b = append(b, '\n')
	send(w, http.StatusOK, b) // written or copied before it returns: the buffer is free after
	*buf = b
}

// pageBuffers holds the buffers page answers are put together in, for the next
// answers: one is the size of a canonical observation, tens of KiB.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer kept for the next answer: a rare
// large one (a full-page screenshot) is not held for the process's life.
const maxPooledPage = 1 << 20

func putPage(b *[]byte) {
	if cap(*b) <= maxPooledPage {
		pageBuffers.Put(b)
	}
}
