package pavilion

// An independent, deliberately simple restatement of the scoring rules of
// docs/rules.md §3.3–§3.8, written from the text and not from the engine's
// code, to check the engine's scores in self-play.

// refCosts are the printed costs, [side][star][space-1]; side 1 is the
// monochrome side.
var refCosts = [2][7][6]int{
	{
		{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6},
		{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6},
	},
	{
		{3, 3, 3, 3, 3, 3}, {3, 2, 1, 4, 5, 6}, {3, 2, 1, 4, 5, 6}, {3, 2, 1, 4, 5, 6},
		{3, 2, 1, 4, 5, 6}, {3, 2, 1, 4, 5, 6}, {3, 2, 1, 4, 5, 6},
	},
}

type refSpace struct{ star, space int }

type refFeature struct {
	bonus  int
	spaces []refSpace
}

var refFeatureList = refFeatures()

// refFeatures lists the 18 features as docs/rules.md §3.3's table does.
func refFeatures() []refFeature {
	pillarCentre := map[int][2]int{1: {5, 6}, 2: {6, 1}, 3: {1, 2}, 4: {2, 3}, 5: {3, 4}, 6: {4, 5}}
	var out []refFeature
	for s := 1; s <= 6; s++ {
		next := s + 1
		if next == 7 {
			next = 1
		}
		out = append(out,
			refFeature{3, []refSpace{{s, 5}, {s, 6}}},
			refFeature{2, []refSpace{{s, 1}, {s, 2}, {next, 3}, {next, 4}}},
			refFeature{1, []refSpace{{s, 2}, {s, 3}, {0, pillarCentre[s][0]}, {0, pillarCentre[s][1]}}},
		)
	}
	return out
}

// refBonusEarned is the number of bonus tiles earned by covering (star,
// space) on a board.
func refBonusEarned(board [7][6]Cell, star, space int) int {
	covered := func(sp refSpace) bool {
		return (sp.star == star && sp.space == space) || !board[sp.star][sp.space-1].Empty()
	}
	n := 0
	for _, f := range refFeatureList {
		touches, all := false, true
		for _, sp := range f.spaces {
			if sp.star == star && sp.space == space {
				touches = true
			}
			if !covered(sp) {
				all = false
			}
		}
		if touches && all {
			n += f.bonus
		}
	}
	return n
}

// refRun scores a placement: the tiles of the star connected to the new
// one through neighbouring spaces (6 and 1 touch), the new one included.
func refRun(board [7][6]Cell, star, space int) int {
	var occ [6]bool
	for i := range 6 {
		occ[i] = !board[star][i].Empty()
	}
	occ[space-1] = true
	// Flood fill from the new tile over the ring.
	seen := [6]bool{}
	stack := []int{space - 1}
	n := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] || !occ[i] {
			continue
		}
		seen[i] = true
		n++
		stack = append(stack, (i+1)%6, (i+5)%6)
	}
	return n
}

// refStarValue is the value of a completed star holding these colours.
func refStarValue(colours []string) int {
	same := true
	for _, c := range colours {
		if c != colours[0] {
			same = false
		}
	}
	if !same {
		return 12
	}
	return map[string]int{"red": 14, "blue": 15, "yellow": 16, "orange": 17, "green": 18, "purple": 20}[colours[0]]
}

// refEndBonus is a seat's end bonus before the kept-tile penalty.
func refEndBonus(board [7][6]Cell, mono bool) int {
	side := 0
	if mono {
		side = 1
	}
	bonus := 0
	for star := range 7 {
		var cols []string
		for _, c := range board[star] {
			if !c.Empty() {
				cols = append(cols, colourNames[c-1])
			}
		}
		if len(cols) == 6 {
			bonus += refStarValue(cols)
		}
	}
	for n := 1; n <= 4; n++ {
		all := true
		for star := range 7 {
			for sp := range 6 {
				if refCosts[side][star][sp] == n && board[star][sp].Empty() {
					all = false
				}
			}
		}
		if all {
			bonus += 4 * n
		}
	}
	return bonus
}

// refLose is how many of n penalty points a score really loses.
func refLose(score, n, floor int) int {
	lose := n
	if score-lose < floor {
		lose = score - floor
	}
	if lose < 0 {
		lose = 0
	}
	return lose
}
