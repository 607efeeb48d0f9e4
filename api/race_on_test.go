//go:build race

package api

// raceDetector: this test binary was built with -race, which makes every
// request about five times dearer; the whole-game tests then take their
// short form (see TestCompleteGames).
const raceDetector = true
