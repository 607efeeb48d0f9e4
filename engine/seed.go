package engine

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
)

// Seed is a game's secret seed. Every draw of a game comes from a ChaCha8
// stream keyed by the seed and the index of the reveal, so a reveal's draws
// never depend on anything but the seed and the state before it, and a
// published seed lets anyone re-derive every draw.
type Seed [32]byte

// NewSeed returns a seed from the operating system's secure random source.
func NewSeed() (Seed, error) {
	var s Seed
	if _, err := rand.Read(s[:]); err != nil {
		return s, fmt.Errorf("read random seed: %w", err)
	}
	return s, nil
}

// ParseSeed reads a seed written as 64 hex digits.
func ParseSeed(text string) (Seed, error) {
	var s Seed
	b, err := hex.DecodeString(text)
	if err != nil || len(b) != len(s) {
		return s, fmt.Errorf("%w: a seed is 64 hex digits", ErrBadCommand)
	}
	copy(s[:], b)
	return s, nil
}

// String is the seed as 64 hex digits.
func (s Seed) String() string { return hex.EncodeToString(s[:]) }

// Commitment is the SHA-256 of the seed, in hex: published at creation,
// checked against the seed revealed at the end.
func (s Seed) Commitment() string {
	sum := sha256.Sum256(s[:])
	return hex.EncodeToString(sum[:])
}

// Rand returns the random source of the reveal-th random reveal of a game:
// ChaCha8 keyed by SHA-256("azuld/reveal" || seed || reveal as 8 bytes BE).
func (s Seed) Rand(reveal int) *mrand.Rand {
	h := sha256.New()
	h.Write([]byte("azuld/reveal"))
	h.Write(s[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(reveal))
	h.Write(n[:])
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return mrand.New(mrand.NewChaCha8(key))
}
