//go:build !race

package pavilion

const raceDetector = false
