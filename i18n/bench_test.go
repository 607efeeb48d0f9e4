package i18n

import (
	"testing"
	"time"
)

// BenchmarkMessage: one message with a placeholder, and one plural, per
// language side by side (go test -bench Message ./i18n/).
func BenchmarkMessage(b *testing.B) {
	c, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, lang := range Languages {
		l := c.Localizer(lang, time.UTC)
		b.Run(lang+"/plain", func(b *testing.B) {
			for b.Loop() {
				_ = l.T("time.in", "Span", "3")
			}
		})
		b.Run(lang+"/plural", func(b *testing.B) {
			for b.Loop() {
				_ = l.N("game.tiles", 3)
			}
		})
		b.Run(lang+"/time", func(b *testing.B) {
			at := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
			for b.Loop() {
				_ = l.Time(at)
			}
		})
	}
}
