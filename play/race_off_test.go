//go:build !race

package play

const raceDetector = false
