// Package jsonstrict decodes JSON that must hold exactly what its reader
// expects: one value, with no object field the Go value has no place for
// and nothing after it. The engines read commands and stored events with
// it, and the API its request bodies, so that all of them refuse the same
// things in the same way.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailing is the error of data that holds more than whitespace after
// its JSON value.
var ErrTrailing = errors.New("data after the JSON value")

// Unmarshal decodes the one JSON value of data into v. An object field v
// has no place for is encoding/json's error (`json: unknown field "x"`),
// and anything but JSON whitespace after the value is ErrTrailing; other
// errors are encoding/json's own (*json.SyntaxError,
// *json.UnmarshalTypeError, io.EOF for no value, io.ErrUnexpectedEOF for
// part of one), so that callers can tell what was wrong.
func Unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// Token reads past whitespace only: io.EOF means nothing follows.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailing
	}
	return nil
}
