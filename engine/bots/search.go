package bots

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The search bot is Monte Carlo tree search over determinised hidden
// information. What a player does not know is the order of the tiles in
// the bag: every draw still to come. Within a round every move is seen by
// all, so the tree follows moves exactly until a move draws tiles (the
// next round's deal, a Pavilion supply refill) or ends the game; such a
// node is a leaf for good, and every iteration finishes the game from it
// with draws of its own (a fresh determinisation of the bag per playout).
// Playouts use a cheap policy (family.quick). Rewards are per seat (each
// seat maximises its own margin against the best other seat). Where
// another seat acts the tree tries only its greedy reply (otherWidth), so
// that the budget goes to the searching seat's own choices; that matters
// most at 3 and 4 players, where the others' alternatives would take most
// of it.

// Search tuning.
const (
	// nodeWidth bounds the moves tried at a node below the root: the best
	// by the greedy estimate. A Pavilion hand alone can be passed in
	// hundreds of ways, most of them poor. (At the bot's root the family
	// says how many: family.rootWidth.)
	nodeWidth = 6
	// analysisWidth is how many of the best moves by the estimate an
	// analysis goes on searching among once it has tried every move once.
	analysisWidth = 16
	// otherWidth is the moves tried at a node where another seat acts:
	// only the one the greedy estimate prefers. The tree then follows the
	// searching seat's own choices against the replies a strong player
	// makes, and the budget goes to them instead of to the other seats'
	// alternatives (measured at 350 playouts, one search seat among
	// greedy ones at 3 players: 77.5 % of 60 games won with the others'
	// best move only, 35 % with their best six).
	otherWidth = 1
	// winWeight is the share of winning in a playout's reward; the rest
	// rewards the margin, so that a lost game is still played well.
	winWeight = 0.7
	// marginScale is the score difference that earns three quarters of the
	// margin part of the reward.
	marginScale = 15.0
	// priorWeight is the progressive bias towards the moves the greedy
	// estimate prefers: a move one point worse than the best starts
	// priorWeight behind in the selection, a lead that fades as 1/(n+1)
	// with its visits n. It steers the first playouts to the moves a good
	// player would look at and leaves the rest to the playouts.
	priorWeight = 0.05
)

// node is one move of the tree, stored in an arena.
type node[C comparable] struct {
	move  C
	mover int8
	// leaf: the move drew hidden tiles or ended the game; never expanded.
	leaf     bool
	expanded bool
	first    int32 // children are nodes[first : first+count]
	count    int32
	visits   int32
	// prior is the greedy estimate's verdict: 0 for the best, minus the
	// points it is behind for the others (0 for all when unranked).
	prior  float32
	reward float64 // sum of the mover's rewards
	diff   float64 // sum of the mover's final score minus the best other
	// diff2 is the sum of diff's squares: with diff and visits, the
	// spread of the playouts, which says how far an analysis can trust
	// the mean.
	diff2 float64
	win   float64 // sum of the mover's wins (ties half)
}

// searcher holds every buffer of a search, so that an iteration allocates
// nothing once the tree's arena has grown.
type searcher[S any, C comparable, E any, F family[S, C, E]] struct {
	f    F
	root S
	// work is the state of the current iteration: a field, not a local,
	// because a generic function's local whose address is taken escapes.
	work S
	// scratch is the state the ranking of a node's moves works on.
	scratch S
	nodes   []node[C]
	path    []int32
	legal   []C
	ranked  []scored[C]
	evs     []E
	rng     *rand.Rand
	// maxNodes bounds the arena; past it nodes stop being expanded.
	maxNodes int
	// horizon is the family's playout horizon (benchmarks set 0 to time
	// whole games).
	horizon int
	// rootAll makes every legal move a child of the root (analysis).
	rootAll bool
	// seat is the root's mover: the seat the search chooses for.
	seat int
}

func newSearcher[S any, C comparable, E any, F family[S, C, E]](f F, root *S, salt uint64) *searcher[S, C, E, F] {
	return &searcher[S, C, E, F]{
		f:        f,
		root:     *root,
		nodes:    make([]node[C], 1, 4096),
		path:     make([]int32, 0, 256),
		legal:    make([]C, 0, 512),
		ranked:   make([]scored[C], 0, 512),
		evs:      make([]E, 0, 64),
		rng:      rand.New(rand.NewPCG(salt, 0x5ea2c4)),
		maxNodes: 1 << 20,
		horizon:  f.horizon(),
		seat:     f.actor(root),
	}
}

// run iterates until playouts iterations are done or the deadline passes
// (a zero deadline: playouts only).
func (x *searcher[S, C, E, F]) run(playouts int, deadline time.Time) int {
	n := 0
	for ; n < playouts; n++ {
		if !deadline.IsZero() && n&15 == 0 && n > 0 && time.Now().After(deadline) {
			break
		}
		x.iterate()
	}
	return n
}

// iterate is one selection, expansion, playout and backup.
func (x *searcher[S, C, E, F]) iterate() {
	f := x.f
	x.work = x.root
	st := &x.work
	x.path = x.path[:0]
	idx := int32(0)
	for {
		nd := &x.nodes[idx]
		if nd.leaf || f.over(st) {
			break
		}
		if !nd.expanded {
			if !x.expand(idx, st) {
				break
			}
			nd = &x.nodes[idx] // the arena may have moved
		}
		if nd.count == 0 {
			break
		}
		child := x.selectChild(nd, idx == 0)
		c := &x.nodes[child]
		before := f.segment(st)
		var err error
		if x.evs, err = f.play(st, int(c.mover), c.move, x.rng, x.evs); err != nil {
			// The tree holds only legal moves: this cannot happen. Stop
			// the descent rather than score a broken game.
			c.leaf = true
			return
		}
		if f.segment(st) != before || f.over(st) {
			c.leaf = true
		}
		x.path = append(x.path, child)
		idx = child
		if c.visits == 0 {
			break
		}
	}
	x.playout(st)
	// Back up: every node of the path rewards its mover, by the final
	// scores or, when the playout stopped early, the greedy estimates.
	var value [4]float64
	players := f.players(st)
	over := f.over(st)
	for seat := range players {
		if over {
			value[seat] = float64(f.score(st, seat))
		} else {
			value[seat] = f.eval(st, seat)
		}
	}
	spread := f.spread(st) // 0 once the game is over: a win is a win
	for _, i := range x.path {
		nd := &x.nodes[i]
		other := math.Inf(-1)
		for seat := range players {
			if seat != int(nd.mover) {
				other = max(other, value[seat])
			}
		}
		d := value[nd.mover] - other
		win := 0.0
		switch {
		case d > 0:
			win = 1
		case d == 0:
			win = 0.5
		}
		chance := win
		if spread > 0 {
			chance = 0.5 + 0.5*math.Tanh(d/spread)
		}
		nd.visits++
		nd.reward += winWeight*chance + (1-winWeight)*(0.5+0.5*math.Tanh(d/marginScale))
		nd.diff += d
		nd.diff2 += d * d
		nd.win += win
	}
	x.nodes[0].visits++
}

// expand adds the children of node idx: the legal moves of the seat to
// act in st, the best few by the greedy estimate. It reports false when
// the arena is full.
func (x *searcher[S, C, E, F]) expand(idx int32, st *S) bool {
	f := x.f
	seat := f.actor(st)
	if seat < 0 {
		x.nodes[idx].leaf = true
		return false
	}
	x.legal = f.legal(x.legal[:0], st, seat)
	width := nodeWidth
	if seat != x.seat {
		width = otherWidth
	}
	if idx == 0 {
		width = f.rootWidth()
		if x.rootAll {
			width = len(x.legal)
		}
	}
	moves := len(x.legal)
	ranked := idx == 0 || moves > width
	if ranked {
		x.ranked, x.evs = rank(f, st, seat, x.legal, x.rng, x.evs, x.ranked[:0], &x.scratch)
		// Stable: among equal estimates the engine's order decides.
		slices.SortStableFunc(x.ranked, func(a, b scored[C]) int {
			switch {
			case a.value > b.value:
				return -1
			case a.value < b.value:
				return 1
			}
			return 0
		})
		moves = min(width, len(x.ranked))
		for i := range moves {
			x.legal[i] = x.ranked[i].move
		}
	}
	if len(x.nodes)+moves > x.maxNodes {
		return false
	}
	first := int32(len(x.nodes))
	for i, c := range x.legal[:moves] {
		nd := node[C]{move: c, mover: int8(seat)}
		if ranked && len(x.ranked) > 0 {
			nd.prior = float32(x.ranked[i].value - x.ranked[0].value)
		}
		x.nodes = append(x.nodes, nd)
	}
	nd := &x.nodes[idx]
	nd.expanded, nd.first, nd.count = true, first, int32(moves)
	return true
}

// selectChild is the child with the best UCB1 value; unvisited children
// first, in order. At the root of an analysis, once every move has been
// tried, the search goes on among the analysisWidth best by the greedy
// estimate (the bot's root holds only its family's rootWidth best): the
// others keep their one playout each.
func (x *searcher[S, C, E, F]) selectChild(nd *node[C], root bool) int32 {
	logN := math.Log(float64(max(nd.visits, 1)))
	exploration := x.f.exploration()
	best, bestV := nd.first, math.Inf(-1)
	end := nd.first + nd.count
	for i := nd.first; i < nd.first+nd.count; i++ {
		if x.nodes[i].visits == 0 {
			return i
		}
	}
	if root && x.rootAll {
		end = nd.first + min(nd.count, analysisWidth)
	}
	for i := nd.first; i < end; i++ {
		c := &x.nodes[i]
		v := c.reward/float64(c.visits) + exploration*math.Sqrt(logN/float64(c.visits)) +
			priorWeight*float64(c.prior)/float64(c.visits+1)
		if root && x.rootAll && i == nd.first {
			// The analysis gives the estimate's choice the margin by which
			// the bot keeps to it, in the playouts it gets rather than in
			// the verdict: the move it names best is still the one tried
			// most.
			v += x.f.switchMargin()
		}
		if v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// playout plays on from st with the cheap policy, to the end or (with a
// horizon) to the end of the stretch (see family.stretch).
func (x *searcher[S, C, E, F]) playout(st *S) {
	f := x.f
	seg := f.stretch(st)
	for !f.over(st) && (x.horizon == 0 || f.stretch(st) == seg) {
		seat := f.actor(st)
		if seat < 0 {
			return
		}
		x.legal = f.playoutMoves(x.legal[:0], st, seat)
		if len(x.legal) == 0 {
			return
		}
		var err error
		if x.evs, err = f.play(st, seat, f.quick(st, seat, x.legal, x.rng), x.rng, x.evs); err != nil {
			return
		}
	}
}

// rootStats are the root's children: move, visits, mean reward and mean
// final score difference to the best other seat, for the mover.
type rootStat[C comparable] struct {
	move C
	verdict
}

// verdict is what a search's playouts say of a move: how often they
// tried it, its mean reward, and its mean final score difference (with
// the sample standard deviation of the playouts' differences, 0 below two
// playouts) and share of wins, for its mover.
type verdict struct {
	visits int
	reward float64
	diff   float64
	diffSD float64
	win    float64
}

func (x *searcher[S, C, E, F]) rootStats() []rootStat[C] {
	root := &x.nodes[0]
	out := make([]rootStat[C], 0, root.count)
	for i := root.first; i < root.first+root.count; i++ {
		c := &x.nodes[i]
		st := rootStat[C]{move: c.move, verdict: verdict{visits: int(c.visits)}}
		if c.visits > 0 {
			st.reward = c.reward / float64(c.visits)
			st.diff = c.diff / float64(c.visits)
			st.win = c.win / float64(c.visits)
		}
		st.diffSD = sampleSD(c.diff, c.diff2, int(c.visits))
		out = append(out, st)
	}
	return out
}

// sampleSD is the sample standard deviation of n values from their sum
// and the sum of their squares; 0 below two values.
func sampleSD(sum, sumSq float64, n int) float64 {
	if n < 2 {
		return 0
	}
	m := float64(n)
	// Rounding can leave the sum of squared deviations a hair below zero
	// when every value is the same.
	return math.Sqrt(max(0, (sumSq-sum*sum/m)/(m-1)))
}

// best is the bot's move: the most visited root move (the best mean
// reward among equals), unless it does not overrule the estimate's.
func (x *searcher[S, C, E, F]) best() (C, bool) {
	var zero C
	stats := x.rootStats()
	if len(stats) == 0 {
		return zero, false
	}
	top := stats[0]
	for _, s := range stats[1:] {
		if s.visits > top.visits || (s.visits == top.visits && s.reward > top.reward) {
			top = s
		}
	}
	// The root's first child is the greedy estimate's choice: the bot's
	// search overrules it only when its playouts say clearly better. (An
	// analysis ranks the moves itself, by the same playouts: Analyse.)
	if g := stats[0]; top.move != g.move && !x.f.overrules(top.verdict, g.verdict) {
		return g.move, true
	}
	return top.move, true
}
