package jsonstrict

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

type shape struct {
	Type  string `json:"type"`
	Count *int   `json:"count"`
	List  []int  `json:"list"`
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error // nil: accepted
		msg  string
	}{
		{in: `{"type":"take","count":2}`},
		{in: " \t\n{\"type\":\"x\"}\r\n "},
		{in: `{"type":"x","extra":1}`, msg: `json: unknown field "extra"`},
		{in: `{"type":"x"} {}`, want: ErrTrailing},
		{in: `{"type":"x"}x`, want: ErrTrailing},
		{in: "{\"type\":\"x\"}\v", want: ErrTrailing},
		{in: ``, want: io.EOF},
		{in: `{"type":`, want: io.ErrUnexpectedEOF},
	} {
		var v shape
		err := Unmarshal([]byte(tc.in), &v)
		switch {
		case tc.msg != "":
			if err == nil || err.Error() != tc.msg {
				t.Errorf("Unmarshal(%q) = %v, want %s", tc.in, err, tc.msg)
			}
		case tc.want == nil && err != nil, tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("Unmarshal(%q) = %v, want %v", tc.in, err, tc.want)
		}
	}
	var v shape
	var syntax *json.SyntaxError
	if err := Unmarshal([]byte(`{"type":}`), &v); !errors.As(err, &syntax) {
		t.Errorf("a syntax error is %T, want *json.SyntaxError", err)
	}
	var typ *json.UnmarshalTypeError
	if err := Unmarshal([]byte(`{"type":1}`), &v); !errors.As(err, &typ) || typ.Field != "type" {
		t.Errorf("a type error is %v, want *json.UnmarshalTypeError of type", err)
	}
}

// FuzzUnmarshal: what Unmarshal accepts, encoding/json reads the same;
// what encoding/json reads and Unmarshal refuses has an unknown field or
// data after the value.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{"type":"take","count":2}`, `{"list":[1,2]} `, `{"x":1}`, `{} {}`, `[`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strict, loose shape
		err := Unmarshal(data, &strict)
		looseErr := json.Unmarshal(data, &loose)
		if err == nil {
			if looseErr != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", data, looseErr)
			}
			if !reflect.DeepEqual(strict, loose) {
				t.Fatalf("read %q as %+v, encoding/json as %+v", data, strict, loose)
			}
			return
		}
		if looseErr == nil && !errors.Is(err, ErrTrailing) && !strings.HasPrefix(err.Error(), "json: unknown field ") {
			t.Fatalf("refused %q, which encoding/json reads, with %v", data, err)
		}
	})
}
