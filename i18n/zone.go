package i18n

import (
	"fmt"
	"time"
)

// LoadZone reads an IANA time zone name as stored with a player. "Local"
// (the server's own zone) and "" (which time.LoadLocation reads as UTC)
// are not names a player means, so they are refused.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("i18n: %q is not an IANA time zone name", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("i18n: time zone %q: %w", name, err)
	}
	return loc, nil
}
