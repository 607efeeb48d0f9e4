package events

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeMeta checks the fast meta reader against encoding/json:
// whatever it accepts, it must read exactly as encoding/json does.
func FuzzDecodeMeta(f *testing.F) {
	seat := 2
	for _, m := range []Meta{
		{},
		{Actor: Actor{Kind: "player", Seat: &seat, PlayerID: "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"}, Channel: "api",
			CommandID: "c1", Command: json.RawMessage(`{"type":"take","factory":"center","color":"red","line":3}`), Notation: "C red 3"},
		{Actor: Actor{Kind: "bot", Bot: "greedy"}, Channel: "bot", Command: json.RawMessage(`{"type":"place","bonus":["blue","purple"],"wilds":0}`)},
		{Actor: Actor{Kind: "system"}, Channel: "timeout"},
	} {
		data, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"actor":{"kind":"player","seat":null},"command":null}`,
		`{"actor":null}`,
		`{ "actor" : { "seat" : -0 } , "command" : [1, {"a": [true, false, null]}, "x"] }`,
		`{"actor":{"seat":1e2}}`,
		`{"actor":{"seat":01}}`,
		`{"Actor":{"Kind":"bot"}}`,
		`{"channel":"a","channel":"b"}`,
		`{"notation":"F1 red \u00e9"}`,
		`{"command":"just a string"}`,
		`{"command":12.5e3}`,
		`{"command":{"a":"\"quoted\""}}`,
		`{"command":{]}`,
		`{"command":tru}`,
		`{"extra":1}`,
		`{}  `,
		`[]`,
		`{"actor":{"seat":123456789012345678901}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want Meta
		wantErr := json.Unmarshal(data, &want)
		got, err := decodeMeta(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json says %v", data, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", data, got, want)
		}
		if fast, ok := fastMeta(data); ok && (wantErr != nil || !reflect.DeepEqual(fast, want)) {
			t.Fatalf("%q: the fast path read %+v, encoding/json %+v (%v)", data, fast, want, wantErr)
		}
	})
}

// TestFastMetaTakesTheCommonShape makes sure the fast path is the one
// that reads what the store writes.
func TestFastMetaTakesTheCommonShape(t *testing.T) {
	t.Parallel()
	seat := 3
	data, err := json.Marshal(Meta{Actor: Actor{Kind: "player", Seat: &seat, PlayerID: "p"}, Channel: "email",
		CommandID: "k", Command: json.RawMessage(`{"type":"pass","keep":["green","green"]}`), Notation: "pass keep green green"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fastMeta(data); !ok {
		t.Fatalf("the fast path refused %s", data)
	}
}
