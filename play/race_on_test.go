//go:build race

package play

// raceDetector: this test binary was built with -race, which makes
// folding games with the engine about ten times slower and finds
// nothing in a single goroutine's folds.
const raceDetector = true
