package pavilion

// Board geometry of docs/rules.md §3.3 and §3.8. A space is addressed by star
// (0 = centre, 1..6 = outer stars clockwise from the purple star) and space
// number 1..6; as a bit it is star*6 + space-1 in a 42-bit mask.

// NumStars is the number of stars on a board (centre + 6 outer).
const NumStars = 7

// CentreStar is the star number of the centre star.
const CentreStar = 0

// outerStarColour is the printed colour of outer star 1..6 on the coloured
// side: purple, orange, red, blue, yellow, green (index 0 unused).
var outerStarColour = [NumStars]Colour{0, Purple, Orange, Red, Blue, Yellow, Green}

// starOfColour is the outer star number printed in each colour.
var starOfColour = [NumColours]int8{Purple: 1, Green: 6, Orange: 2, Yellow: 5, Blue: 4, Red: 3}

// StarOfColour is the outer star printed in colour c on the coloured side
// (and the same board position on the monochrome side).
func StarOfColour(c Colour) int {
	if !c.Valid() {
		return -1
	}
	return int(starOfColour[c])
}

// StarColour is the printed colour of outer star 1..6 on the coloured side.
func StarColour(star int) (Colour, bool) {
	if star < 1 || star > 6 {
		return 0, false
	}
	return outerStarColour[star], true
}

// colourValue is the end value of a completed star of each colour (§3.7).
var colourValue = [NumColours]uint8{Purple: 20, Green: 18, Orange: 17, Yellow: 16, Blue: 15, Red: 14}

// multiValue is the end value of a completed centre / multicoloured star.
const multiValue = 12

// monoOuterCost is the printed cost of outer spaces 1..6 on the monochrome
// side; every centre space there costs monoCentreCost.
var monoOuterCost = [6]uint8{3, 2, 1, 4, 5, 6}

const monoCentreCost = 3

// spaceCost is the printed cost of a space (space 1..6).
func spaceCost(mono bool, star, space int) int {
	if !mono {
		return space
	}
	if star == CentreStar {
		return monoCentreCost
	}
	return int(monoOuterCost[space-1])
}

// bit is the mask bit of a space.
func bit(star, space int) uint64 { return 1 << uint(star*6+space-1) }

// starMask covers the six spaces of a star.
func starMask(star int) uint64 { return 0x3f << uint(star*6) }

// Feature kinds and bonus tiles (§3.3). Feature f is window (f<6), statue
// (6<=f<12) or pillar (12<=f<18) of outer star f%6+1.
const (
	NumFeatures = 18
	windowBonus = 3
	statueBonus = 2
	pillarBonus = 1
)

// FeatureKind names a feature's kind: "window", "statue" or "pillar".
func FeatureKind(f int) string {
	switch f / 6 {
	case 0:
		return "window"
	case 1:
		return "statue"
	default:
		return "pillar"
	}
}

// FeatureStar is the outer star a feature belongs to; a statue of star s
// lies between s and the next star clockwise.
func FeatureStar(f int) int { return f%6 + 1 }

// featureBonus is the number of bonus tiles a feature earns.
func featureBonus(f int) int {
	switch f / 6 {
	case 0:
		return windowBonus
	case 1:
		return statueBonus
	default:
		return pillarBonus
	}
}

// cyc maps any integer onto 1..6 cyclically.
func cyc(k int) int { return ((k-1)%6+6)%6 + 1 }

// featureMasks are the spaces surrounding each feature.
var featureMasks = buildFeatureMasks()

func buildFeatureMasks() [NumFeatures]uint64 {
	var m [NumFeatures]uint64
	for s := 1; s <= 6; s++ {
		t := cyc(s + 1)
		m[s-1] = bit(s, 5) | bit(s, 6)
		m[6+s-1] = bit(s, 1) | bit(s, 2) | bit(t, 3) | bit(t, 4)
		m[12+s-1] = bit(s, 2) | bit(s, 3) | bit(CentreStar, cyc(s-2)) | bit(CentreStar, cyc(s-1))
	}
	return m
}

// completedFeatures are the features that placing on b completes, given the
// spaces covered before.
func completedFeatures(covered, b uint64) uint32 {
	after := covered | b
	var done uint32
	for f, m := range featureMasks {
		if m&b != 0 && after&m == m {
			done |= 1 << uint(f)
		}
	}
	return done
}

// bonusOf is the number of bonus tiles a set of features earns.
func bonusOf(features uint32) int {
	n := 0
	for f := range NumFeatures {
		if features&(1<<uint(f)) != 0 {
			n += featureBonus(f)
		}
	}
	return n
}

// costMasks[side][n-1] covers the spaces of printed cost n (1..4) for the
// "all 1s/2s/3s/4s" end bonuses; side 0 coloured, 1 monochrome.
var costMasks = buildCostMasks()

func buildCostMasks() [2][4]uint64 {
	var m [2][4]uint64
	for side := range 2 {
		for star := range NumStars {
			for space := 1; space <= 6; space++ {
				if c := spaceCost(side == 1, star, space); c <= 4 {
					m[side][c-1] |= bit(star, space)
				}
			}
		}
	}
	return m
}

// allCostBonus is the end bonus for covering every space of cost n (1..4).
func allCostBonus(n int) int { return 4 * n }

// runLength is the contiguous run of covered spaces in the star of the new
// space, the new space included (§3.5 scoring).
func runLength(covered uint64, star, space int) int {
	spaces := (covered >> uint(star*6)) & 0x3f
	spaces |= 1 << uint(space-1)
	if spaces == 0x3f {
		return 6
	}
	n := 1
	for i := 1; i < 6; i++ {
		if spaces&(1<<uint((space-1+i)%6)) == 0 {
			break
		}
		n++
	}
	for i := 1; i < 6; i++ {
		if spaces&(1<<uint((space-1-i+6)%6)) == 0 {
			break
		}
		n++
	}
	return n
}
