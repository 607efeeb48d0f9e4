package browser

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// analysisWait bounds the wait for a job worker's analysis (a second or
// two of one core, more on a busy machine).
const analysisWait = 3 * time.Minute

// analysis is the part of GET analysis the test compares with the page.
type analysis struct {
	Seat   int    `json:"seat"`
	Played string `json:"played"`
	Best   string `json:"best"`
	Moves  []struct {
		Notation        string  `json:"notation"`
		ScoreDiff       float64 `json:"score_diff"`
		ScoreDiffMargin float64 `json:"score_diff_margin"`
		WinRate         float64 `json:"win_rate"`
		Visits          int     `json:"visits"`
		Searched        bool    `json:"searched"`
	} `json:"moves"`
}

// verdictWords are what the verdict line says in a language: of the best
// move, of a move not searched, of a loss, a gain and a draw of the
// points (with the number of points in the language's decimals).
var verdictWords = map[string]struct {
	best, unsearched, lost, gained, equal, notSearched, decimal string
}{
	"en": {"was the best", "was not searched", "lost %s points against the best", "scored %s points more than the best", "scored as well as the best", "not searched", "."},
	"nl": {"was de beste", "is niet onderzocht", "verloor %s punten ten opzichte van de beste", "scoorde %s punten meer dan de beste", "scoorde even goed als de beste", "niet onderzocht", ","},
}

// checkAnalysis compares the panel, with every move listed, with the
// API's analysis in the page's language: the moves in the API's ranked
// order, the best first; how sure each figure is (± for a searched move,
// "not searched" without figures for the others); and the verdict,
// worded without a double negative, on the same best move as the table.
func (p *player) checkAnalysis(want analysis, lang string) {
	t := p.e.t
	t.Helper()
	w := verdictWords[lang]
	order := eval[[]string](p, `[...document.querySelectorAll('#analysis tbody tr[data-notation]')].map(e => e.dataset.notation)`)
	if len(order) != len(want.Moves) {
		t.Fatalf("%s: the page lists %d moves, the API %d", lang, len(order), len(want.Moves))
	}
	if order[0] != want.Best || want.Moves[0].Notation != want.Best {
		t.Fatalf("%s: the page ranks %q first, the API %q, whose best is %q", lang, order[0], want.Moves[0].Notation, want.Best)
	}
	for i, m := range want.Moves {
		if order[i] != m.Notation {
			t.Fatalf("%s: the page's move %d is %q, the API's %q", lang, i+1, order[i], m.Notation)
		}
	}
	cells := eval[[]string](p, `[...document.querySelectorAll('#analysis tbody tr[data-notation]')].map(e => [...e.querySelectorAll('td.num')].map(c => c.textContent).join(' | '))`)
	visits := eval[[]string](p, `[...document.querySelectorAll('#analysis tbody tr[data-notation]')].map(e => e.querySelector('th .visits').textContent)`)
	interval := regexp.MustCompile(`^[+−±]\d+` + regexp.QuoteMeta(w.decimal) + `\d± \d+` + regexp.QuoteMeta(w.decimal) + `\d \| `)
	for i, m := range want.Moves {
		if digits := strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return r
			}
			return -1
		}, visits[i]); digits != strconv.Itoa(m.Visits) {
			t.Fatalf("%s: %s, tried %d times, shows %q", lang, m.Notation, m.Visits, visits[i])
		}
		switch {
		case !m.Searched && (!strings.Contains(cells[i], w.notSearched) || strings.Contains(cells[i], "%")):
			t.Fatalf("%s: %s, tried %d times, shows %q", lang, m.Notation, m.Visits, cells[i])
		case m.Searched && m.ScoreDiffMargin > 0 && !interval.MatchString(cells[i]):
			t.Fatalf("%s: %s, %+.1f ± %.1f, shows %q", lang, m.Notation, m.ScoreDiff, m.ScoreDiffMargin, cells[i])
		}
	}
	verdict := eval[string](p, `document.querySelector('#analysis .verdict-line').textContent`)
	played, best := -1, 0 // the API's best is its first, as checked above
	for i, m := range want.Moves {
		if m.Notation == want.Played {
			played = i
		}
	}
	if played < 0 {
		t.Fatalf("%s: the move played, %q, is not in the analysis", lang, want.Played)
	}
	tenths := math.Round((want.Moves[best].ScoreDiff-want.Moves[played].ScoreDiff)*10) / 10
	number := strings.Replace(fmt.Sprintf("%.1f", math.Abs(tenths)), ".", w.decimal, 1)
	var says string
	switch {
	case played == best:
		says = w.best
	case !want.Moves[played].Searched:
		says = w.unsearched
	case tenths > 0:
		says = fmt.Sprintf(w.lost, number)
	case tenths < 0:
		says = fmt.Sprintf(w.gained, number)
	default:
		says = w.equal
	}
	t.Logf("%s: %q", lang, verdict)
	if !strings.Contains(verdict, says) || strings.Contains(verdict, "−") {
		t.Fatalf("%s: the page says %q, want %q", lang, verdict, says)
	}
}

// moveAfter is the first version from which a seat moves next (the
// position the analysis is about), at or after from.
func (e *env) moveAfter(id string, from int64) int64 {
	e.t.Helper()
	var log struct {
		Events []struct {
			Version int64 `json:"version"`
			Undone  bool  `json:"undone"`
			Meta    struct {
				Actor struct {
					Seat *int `json:"seat"`
				} `json:"actor"`
			} `json:"meta"`
		} `json:"events"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+id+"/events?after=0&limit=1000", nil, http.StatusOK, &log)
	for _, ev := range log.Events {
		if ev.Version > from && ev.Meta.Actor.Seat != nil && !ev.Undone {
			return ev.Version - 1
		}
	}
	e.t.Fatalf("no seat moves after version %d", from)
	return 0
}

// botsGame is a finished game of the rule set: p creates it for two
// bots, which play it whole inside the create. It is public: p holds no
// seat in it.
func (e *env) botsGame(p *player, ruleset string) gameState {
	e.t.Helper()
	var done gameState
	e.rest(p.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": ruleset, "seed": seedA, "visibility": "public",
		"seats": []map[string]string{{"bot": "greedy"}, {"bot": "random"}}}, http.StatusCreated, &done)
	// As in azuld, the job workers move the bots: the game plays itself
	// out after its creation.
	until(e.t, analysisWait, "the bots' game to finish", func() (bool, string) {
		done = e.game(done.ID)
		return done.Status == "finished", "status " + done.Status
	})
	return done
}

// analyseInReplay has two bots play a game of the rule set, opens its
// replay at the first position after version from where a seat moves,
// asks for the analysis by keyboard and checks the panel against the API.
func analyseInReplay(t *testing.T, e *env, ann *player, ruleset string, from int64) (gameState, int64, analysis) {
	t.Helper()
	done := e.botsGame(ann, ruleset)
	v := e.moveAfter(done.ID, from)
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.querySelector('#analysis #analyse')`, v), "the offer to analyse")
	ann.shot(ruleset + "-analysis-offer")
	if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#analysis #analyse")), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](ann, `document.getElementById('analysis').dataset.state + ' ' + document.getElementById('analysis').innerText`); !strings.HasPrefix(got, "computing") || !strings.Contains(got, "Computing…") {
		t.Fatalf("after asking, the panel shows %q", got)
	}
	ann.shot(ruleset + "-analysis-computing")
	ann.waitLong(`document.getElementById('analysis').dataset.state == 'done'`, "the analysis", analysisWait)
	if !eval[bool](ann, `document.getElementById('analysis').contains(document.activeElement)`) {
		t.Fatal("the keyboard's place is lost once the analysis is shown")
	}

	var want analysis
	e.rest(ann.token, http.MethodGet, fmt.Sprintf("/v1/games/%s/analysis?version=%d", done.ID, v), nil, http.StatusOK, &want)
	if want.Seat < 0 || len(want.Moves) == 0 {
		t.Fatalf("the API's analysis has no moves: %+v", want)
	}
	played := eval[[]string](ann, `[...document.querySelectorAll('#analysis tr.played')].map(e => e.dataset.notation)`)
	best := eval[[]string](ann, `[...document.querySelectorAll('#analysis tr.best')].map(e => e.dataset.notation)`)
	if len(played) != 1 || played[0] != want.Played || len(best) != 1 || best[0] != want.Best {
		t.Fatalf("the page marks played %q and best %q; the API says %q and %q", played, best, want.Played, want.Best)
	}
	// The short list, then every move by the keyboard.
	rows := eval[int](ann, `document.querySelectorAll('#analysis tbody tr[data-notation]').length`)
	if rows > 9 || rows < min(len(want.Moves), 8) {
		t.Fatalf("%d moves listed at first of %d", rows, len(want.Moves))
	}
	ann.shot(ruleset + "-analysis")
	if len(want.Moves) > rows {
		if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#analysis button.more")), chromedp.KeyEvent(kb.Enter)); err != nil {
			t.Fatal(err)
		}
		ann.waitJS(fmt.Sprintf(`document.querySelectorAll('#analysis tbody tr[data-notation]').length == %d`, len(want.Moves)), "every move listed")
		if !eval[bool](ann, `document.activeElement.matches('#analysis button.more')`) {
			t.Fatal("the focus left the button that lists every move")
		}
	}
	ann.checkAnalysis(want, "en")
	ann.viewport(390, 844)
	ann.shot(ruleset + "-analysis-phone")
	ann.viewport(1280, 900)
	return done, v, want
}

// TestReplayAnalysis: the replay of a finished game offers the analysis
// of the position shown; asked for by keyboard, it says it is computing
// until a job worker has it, then lists the moves with the played and the
// best one marked, as the API has them, and says what the played move
// lost. Come back to, or reloaded, the page shows it without asking. A
// running game's replay offers no analysis.
func TestReplayAnalysis(t *testing.T) {
	parallel(t)
	e := newEnvWorkers(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	done, v, want := analyseInReplay(t, e, ann, "azul-mini", 8)
	analyseInReplay(t, e, ann, "summer-pavilion", 30)

	// Another step has its own offer; back again, the analysis is there.
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(`document.getElementById('analysis').dataset.state == 'done'`, "the analysis the browser holds")
	if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#slider")), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.getElementById('analysis').dataset.state != 'done'`, v+1), "the next step without its analysis")
	if err := chromedp.Do(ann.ctx, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.getElementById('analysis').dataset.state == 'done'`, v), "the analysis again")
	// A reloaded page shows the analysis the browser holds, unasked.
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(`document.getElementById('analysis').dataset.state == 'done' && document.querySelector('#analysis tr.best')`, "the analysis from the browser's cache")

	// In Dutch, with every move listed: Dutch words and decimals.
	ann.speak("nl", "Europe/Amsterdam")
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(`document.getElementById('analysis').dataset.state == 'done'`, "the analysis in Dutch")
	if eval[bool](ann, `!!document.querySelector('#analysis button.more')`) {
		if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#analysis button.more"))); err != nil {
			t.Fatal(err)
		}
	}
	ann.waitJS(fmt.Sprintf(`document.querySelectorAll('#analysis tbody tr[data-notation]').length == %d`, len(want.Moves)), "every move listed in Dutch")
	ann.checkAnalysis(want, "nl")
	ann.shot("azul-mini-analysis-nl")
	ann.speak("en", "UTC")

	// The last version has nothing to analyse.
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, done.Version))
	ann.waitJS(`document.getElementById('analysis').dataset.state == 'none' && !document.querySelector('#analysis button')`, "no offer at the end")

	// A running game: no panel, no button, at any step.
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	for range 3 {
		e.moveREST(id, []*player{ann, bob})
	}
	for _, at := range []int64{1, e.moveAfter(id, 1), e.game(id).Version} {
		ann.open(fmt.Sprintf("/games/%s/replay?version=%d", id, at))
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d'`, at), "the running game's replay")
		if got := eval[string](ann, `document.getElementById('analysis').innerHTML + (document.getElementById('analyse') ? 'button' : '')`); got != "" {
			t.Fatalf("a running game's replay at v%d shows %q", at, got)
		}
	}
}

// TestReplayAnalysisAskedOnce: stepping through a finished game's replay
// asks the server for no analysis and leaves the console clean; an
// analysis asked for once is shown again, after a reload, without a
// request.
func TestReplayAnalysisAskedOnce(t *testing.T) {
	parallel(t)
	e := newEnvWorkers(t)
	ann := e.newPlayer("Ann")
	done := e.botsGame(ann, "azul-mini")
	v := e.moveAfter(done.ID, 8)
	ann.watchConsole()
	analysisRequests := `performance.getEntriesByType('resource').filter(e => e.name.includes('/analysis?version=')).length`

	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.querySelector('#analysis #analyse')`, v), "the offer to analyse")
	if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#slider"))); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 6; i++ {
		if err := chromedp.Do(ann.ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.getElementById('analysis').dataset.state`, v+i), fmt.Sprintf("version %d", v+i))
	}
	ann.noConsoleErrors("stepping through the replay")
	if n := eval[int](ann, analysisRequests); n != 0 {
		t.Fatalf("stepping through the replay made %d analysis requests, want none", n)
	}

	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(`document.querySelector('#analysis #analyse')`, "the offer to analyse")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#analysis #analyse"))); err != nil {
		t.Fatal(err)
	}
	ann.waitLong(`document.getElementById('analysis').dataset.state == 'done'`, "the analysis", analysisWait)
	ann.noConsoleErrors("while the analysis was computed")

	// Reloaded, the page shows it from the browser's store, unasked.
	ann.open(fmt.Sprintf("/games/%s/replay?version=%d", done.ID, v))
	ann.waitJS(`document.getElementById('analysis').dataset.state == 'done' && document.querySelector('#analysis tr.best')`, "the analysis the browser holds")
	if n := eval[int](ann, analysisRequests); n != 0 {
		t.Fatalf("the analysis the browser holds was asked for again (%d requests)", n)
	}
	ann.noConsoleErrors("after the reload")
}
