//go:build !race

package azul

const raceDetector = false
