//go:build race

package pavilion

// raceDetector: this test binary was built with -race, which makes the
// engine's single-threaded self-play about ten times slower and finds
// nothing in it that the games without it would not.
const raceDetector = true
