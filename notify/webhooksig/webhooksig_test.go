package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	secret = []byte("whsec_test")
	body   = []byte(`{"game":"g1","version":7}`)
	t0     = time.Unix(1_795_000_000, 0)
)

func TestSignFormat(t *testing.T) {
	got := Sign(secret, body, t0)
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("1795000000." + string(body)))
	want := "t=1795000000,v1=" + hex.EncodeToString(h.Sum(nil))
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	sig := Sign(secret, body, t0)
	other := Sign([]byte("old secret"), body, t0)
	oldV1 := other[strings.Index(other, "v1="):]
	tests := []struct {
		name    string
		secret  []byte
		body    []byte
		header  string
		now     time.Time
		wantErr error
	}{
		{"valid", secret, body, sig, t0, nil},
		{"valid a little later", secret, body, sig, t0.Add(4 * time.Minute), nil},
		{"valid sender clock a little ahead", secret, body, sig, t0.Add(-4 * time.Minute), nil},
		{"rotation: new secret among several", secret, body, sig + "," + oldV1, t0, nil},
		{"rotation: old secret first", secret, body, "t=1795000000," + oldV1 + "," + sig[strings.Index(sig, "v1="):], t0, nil},
		{"spaces around items", secret, body, strings.ReplaceAll(sig, ",", " , "), t0, nil},
		{"unknown scheme ignored", secret, body, sig + ",v0=abc", t0, nil},
		{"stale (replay)", secret, body, sig, t0.Add(6 * time.Minute), ErrStale},
		{"future", secret, body, sig, t0.Add(-6 * time.Minute), ErrStale},
		{"body changed", secret, []byte(`{"game":"g1","version":8}`), sig, t0, ErrMismatch},
		{"wrong secret", []byte("nope"), body, sig, t0, ErrMismatch},
		{"timestamp changed", secret, body, strings.Replace(sig, "t=1795000000", "t=1795000001", 1), t0, ErrMismatch},
		{"empty", secret, body, "", t0, ErrMalformed},
		{"no t", secret, body, sig[strings.Index(sig, "v1="):], t0, ErrMalformed},
		{"no v1", secret, body, "t=1795000000", t0, ErrMalformed},
		{"two t", secret, body, "t=1795000000," + sig, t0, ErrMalformed},
		{"v1 not hex", secret, body, "t=1795000000,v1=zz", t0, ErrMalformed},
		{"v1 short", secret, body, "t=1795000000,v1=abcd", t0, ErrMalformed},
		{"negative t", secret, body, "t=-5," + oldV1, t0, ErrMalformed},
		{"huge t", secret, body, "t=99999999999999999999," + oldV1, t0, ErrMalformed},
		{"item without =", secret, body, sig + ",junk", t0, ErrMalformed},
		{"too long", secret, body, sig + strings.Repeat(",x=y", 2000), t0, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.secret, tt.body, tt.header, tt.now, 5*time.Minute)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Verify = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(Sign(secret, body, t0), int64(0))
	f.Add("t=1795000000,v1=00", int64(10))
	f.Add("t=,v1=", int64(-1))
	f.Add(",,,=,t=1,t=2", int64(1<<40))
	f.Fuzz(func(t *testing.T, header string, skew int64) {
		err := Verify(secret, body, header, t0.Add(time.Duration(skew)), 5*time.Minute)
		if err == nil {
			// Accepting means a v1 really is the MAC of its timestamp.
			ts, sigs, perr := parse(header)
			if perr != nil {
				t.Fatalf("accepted a header parse rejects: %v", perr)
			}
			want := mac(secret, ts, body)
			found := false
			for _, s := range sigs {
				found = found || hmac.Equal(s, want)
			}
			if !found {
				t.Fatalf("accepted %q without a matching signature", header)
			}
			return
		}
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrStale) && !errors.Is(err, ErrMismatch) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	big := []byte(strings.Repeat("x", 4096))
	sig := Sign(secret, big, t0)
	for b.Loop() {
		if err := Verify(secret, big, sig, t0, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}
