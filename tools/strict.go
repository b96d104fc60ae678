package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/veetbot/veetbrowser/errcode"
)

// Strict parsing of tool arguments, shared by every tool.

// MaxArgumentBytes bounds the JSON arguments of one tool call. The largest
// legitimate argument is the text of a type action; a megabyte is far more
// than an agent types into a page, and a bound keeps a hostile call from
// holding memory or echoing itself back.
const MaxArgumentBytes = 1 << 20

// strict decodes a JSON object, refusing unknown fields and trailing data.
// Absent arguments are the empty object; null, any other JSON value and
// anything over MaxArgumentBytes are refused.
func strict(raw json.RawMessage, into any) error {
	if len(raw) > MaxArgumentBytes {
		return errcode.New(errcode.InvalidArgument, "the arguments exceed the %d-byte limit", MaxArgumentBytes)
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		raw = json.RawMessage("{}")
	} else if trimmed[0] != '{' {
		return errcode.New(errcode.InvalidArgument, "invalid arguments: expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return errcode.Wrap(errcode.InvalidArgument, err, "invalid arguments: %s", publicDecodeError(err))
	}
	if dec.More() {
		return errcode.New(errcode.InvalidArgument, "invalid arguments: trailing data")
	}
	return nil
}

// publicDecodeError names what was wrong without echoing more than a cut
// prefix of what was sent.
func publicDecodeError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "unknown field "); i >= 0 {
		name := msg[i+len("unknown field "):]
		if u, uerr := strconv.Unquote(name); uerr == nil {
			name = u
		}
		return "unknown field " + errcode.Quote(name)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%s must be a %s", errcode.Quote(te.Field), jsonType(te.Type))
	}
	return "expected a JSON object"
}

// jsonType names t as the caller knows it: a named string type, such as an
// action kind, is a string on the wire, not a Go type.
func jsonType(t reflect.Type) string {
	if t.PkgPath() != "" && t.Kind() == reflect.String {
		return "string"
	}
	return t.String()
}
