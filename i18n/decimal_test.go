package i18n

import (
	"testing"
	"time"
)

// Decimals are written with the reader's decimal separator and grouping.
func TestDecimal(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][4]string{
		// 3.44 to one place, −12.25 to one place, 1234.56 to one place,
		// −0.04 to one place.
		"en": {"3.4", "−12.3", "1,234.6", "0.0"},
		"nl": {"3,4", "−12,3", "1.234,6", "0,0"},
		"de": {"3,4", "−12,3", "1.234,6", "0,0"},
		"it": {"3,4", "−12,3", "1.234,6", "0,0"},
	}
	for lang, want := range cases {
		l := c.Localizer(lang, time.UTC)
		got := [4]string{l.Decimal(3.44, 1), l.Decimal(-12.25, 1), l.Decimal(1234.56, 1), l.Decimal(-0.04, 1)}
		if got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
}
