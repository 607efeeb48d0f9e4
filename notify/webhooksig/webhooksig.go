// Package webhooksig signs and verifies webhook deliveries.
//
// Every delivery carries the header
//
//	Azuld-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>
//
// The timestamp is inside the signed text, so a receiver that rejects old
// timestamps cannot be fooled by a replayed delivery. While a secret is being
// rotated the header carries one v1= per secret; a receiver accepts the
// delivery when any of them matches its secret.
//
// A bot written in Go checks a delivery like this:
//
//	func hook(w http.ResponseWriter, r *http.Request) {
//		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
//		if err != nil {
//			http.Error(w, "bad body", http.StatusBadRequest)
//			return
//		}
//		sig := r.Header.Get(webhooksig.Header)
//		if err := webhooksig.Verify(secret, body, sig, time.Now(), 5*time.Minute); err != nil {
//			http.Error(w, err.Error(), http.StatusUnauthorized)
//			return
//		}
//		// body is an authentic, fresh delivery.
//	}
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header is the HTTP header that carries the signature.
const Header = "Azuld-Signature"

// maxHeader bounds the header a verifier is willing to parse; a signature
// header with a handful of secrets is well under 1 KiB.
const maxHeader = 4096

// Errors returned by Verify (wrapped with detail).
var (
	ErrMalformed = errors.New("webhook signature header malformed")
	ErrStale     = errors.New("webhook signature timestamp outside tolerance")
	ErrMismatch  = errors.New("webhook signature does not match")
)

// Sign returns the header value for body sent at t.
func Sign(secret []byte, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks header against body and secret. It fails when the header is
// malformed, when its timestamp is more than tolerance away from now (in
// either direction: a clock far ahead is as suspicious as a replay), or when
// no v1= signature matches. Unknown schemes (v0=, v2=, …) are ignored so
// senders can add stronger ones later. The comparison is constant-time.
func Verify(secret []byte, body []byte, header string, now time.Time, tolerance time.Duration) error {
	ts, sigs, err := parse(header)
	if err != nil {
		return err
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q", ErrMalformed, ts)
	}
	if tolerance < 0 {
		tolerance = -tolerance
	}
	// Compare in seconds: converting an arbitrary int64 to time.Duration
	// would overflow.
	diff := now.Unix() - sec
	if diff < 0 {
		diff = -diff
	}
	if diff < 0 || diff > int64(tolerance/time.Second) {
		return fmt.Errorf("%w: t=%s, now %d", ErrStale, ts, now.Unix())
	}
	want := mac(secret, ts, body)
	matched := 0
	for _, s := range sigs {
		// Every candidate is compared, so the time taken does not tell which
		// one matched.
		matched |= subtle.ConstantTimeCompare(want, s)
	}
	if matched == 0 {
		return ErrMismatch
	}
	return nil
}

// parse splits "t=…,v1=…,v1=…" into the timestamp and the decoded v1
// signatures. Whitespace around items is allowed; a missing t=, a repeated
// t=, or no v1= at all is malformed.
func parse(header string) (ts string, sigs [][]byte, err error) {
	if len(header) > maxHeader {
		return "", nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(header))
	}
	if strings.TrimSpace(header) == "" {
		return "", nil, fmt.Errorf("%w: empty", ErrMalformed)
	}
	seenT := false
	for item := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return "", nil, fmt.Errorf("%w: item %q", ErrMalformed, item)
		}
		switch k {
		case "t":
			if seenT {
				return "", nil, fmt.Errorf("%w: repeated t=", ErrMalformed)
			}
			seenT = true
			if v == "" || len(v) > 19 || strings.TrimLeft(v, "0123456789") != "" {
				return "", nil, fmt.Errorf("%w: timestamp %q", ErrMalformed, v)
			}
			ts = v
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size {
				return "", nil, fmt.Errorf("%w: v1 is not 64 hex digits", ErrMalformed)
			}
			sigs = append(sigs, sig)
		}
	}
	if !seenT {
		return "", nil, fmt.Errorf("%w: no t=", ErrMalformed)
	}
	if len(sigs) == 0 {
		return "", nil, fmt.Errorf("%w: no v1=", ErrMalformed)
	}
	return ts, sigs, nil
}
