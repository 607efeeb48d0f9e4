package browser

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestLeaderboardToProfile: after a few finished games, a player opens
// the leaderboard from the header, shows the provisional ratings, finds
// the other player, clicks the name and reads the profile, whose rating
// chart is drawn (a point per rated game) and fits the screen, on a
// desktop and on a phone.
func TestLeaderboardToProfile(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	resign := func(p *player, id string) {
		e.rest(p.token, http.MethodPost, "/v1/games/"+id+"/moves", map[string]string{"type": "resign"}, http.StatusCreated, nil)
	}
	// Five games of Azul Mini: Bob wins three, Ann two; one game of Bob
	// against the greedy bot.
	const games = 5
	var last string
	for i := range games {
		id := e.newGame("azul-mini", nil, "", ann, bob)
		last = id
		if i%2 == 0 {
			resign(ann, id)
		} else {
			resign(bob, id)
		}
	}
	var g struct {
		ID string `json:"id"`
	}
	e.rest(bob.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "summer-pavilion-mini",
		"seats": []map[string]string{{"player": bob.id}, {"bot": "greedy"}}}, http.StatusCreated, &g)
	resign(bob, g.ID)

	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 375, 740}} {
		ann.viewport(size.w, size.h)
		ann.open("/")
		ann.clickJS(`document.querySelector('nav.site-nav a[href="/ratings"]')`)
		ann.waitJS(`document.body.classList.contains('page-ratings')`, "the leaderboard")
		// Every rating is provisional after five games: they are listed,
		// marked, without ticking the box (which shows ticked).
		ann.waitJS(`document.querySelector('.board-note') && document.querySelector('form.board-choice input[name=provisional]').checked && document.querySelectorAll('table.leaderboard tbody tr').length == 2`, "both players on the board, provisional")
		if first := eval[string](ann, `document.querySelector('table.leaderboard tbody tr td.name a').textContent`); first != "Bob" {
			t.Errorf("%s: the first on the board is %q, want Bob", size.name, first)
		}
		if w := eval[float64](ann, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s: the leaderboard is %v px wider than the screen", size.name, w)
		}
		ann.shot("ratings-" + size.name)

		ann.clickJS(`[...document.querySelectorAll('table.leaderboard td.name a')].find(a => a.textContent == 'Bob')`)
		ann.waitJS(`document.body.classList.contains('page-profile') && document.querySelector('h1').textContent == 'Bob'`, "Bob's profile")
		// The rating Bob played last (against the bot) is drawn first;
		// the Azul Mini one is a click away.
		ann.clickJS(`[...document.querySelectorAll('nav.chart-choice a')].find(a => a.textContent.startsWith('Azul Mini'))`)
		ann.waitJS(`document.querySelectorAll('svg.rating-chart circle.pt').length == `+strconv.Itoa(games), "a point per rated game of Azul Mini")
		box := eval[[]float64](ann, `(() => { const r = document.querySelector('svg.rating-chart').getBoundingClientRect(); return [r.width, r.height]; })()`)
		if len(box) != 2 || box[0] < 250 || box[1] < 150 || box[0] > float64(size.w) {
			t.Errorf("%s: the chart is %v px", size.name, box)
		}
		if w := eval[float64](ann, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s: the profile is %v px wider than the screen", size.name, w)
		}
		// The smallest text of the chart stays readable.
		if px := eval[float64](ann, `Math.min(...[...document.querySelectorAll('svg.rating-chart text')].map(t => t.getBoundingClientRect().height))`); px < 9 {
			t.Errorf("%s: chart text %v px high", size.name, px)
		}
		ann.waitJS(`document.body.textContent.includes('You and Bob') && document.body.textContent.includes('5 finished games together.')`, "the head-to-head")
		ann.shot("profile-" + size.name)
	}
	// In Dutch, on a phone: the chart's numbers have a decimal comma, and
	// none of its words or numbers is crossed by an axis or another text,
	// for either rating (the bot game's spans less than two points).
	ann.speak("nl", "Europe/Amsterdam")
	ann.viewport(375, 740)
	ann.open("/ratings")
	ann.waitJS(`document.querySelector('.board-note') && document.querySelectorAll('table.leaderboard tbody tr').length == 2`, "the Dutch leaderboard")
	if r := eval[string](ann, `document.querySelector('table.leaderboard td.rating').textContent`); !strings.Contains(r, ",") {
		t.Errorf("the Dutch leaderboard writes the rating %q", r)
	}
	ann.shot("ratings-nl-phone")
	for _, chart := range []string{"azul-mini.2", "summer-pavilion-mini.2"} {
		ann.open("/players/" + bob.id + "?chart=" + chart)
		ann.waitJS(`document.querySelector('svg.rating-chart circle.pt')`, "Bob's chart in Dutch")
		if clash := eval[string](ann, chartClashes); clash != "" {
			t.Errorf("%s: the chart's texts clash: %s", chart, clash)
		}
		if ticks := eval[string](ann, `[...document.querySelectorAll('svg.rating-chart text.tick.y')].map((t) => t.textContent).join(' ')`); strings.Contains(ticks, ".") {
			t.Errorf("%s: the axis reads %q", chart, ticks)
		}
		ann.shot("profile-chart-nl-" + chart)
	}

	// On a game's page, drawn by the script, the players' names lead to
	// their profiles too.
	ann.viewport(1280, 900)
	ann.open("/games/" + last)
	ann.waitJS(`document.querySelector('article.player h2 a.profile-link[href="/players/`+bob.id+`"]')`, "a link to Bob's profile on the table")
	ann.clickJS(`document.querySelector('article.player h2 a.profile-link[href="/players/` + bob.id + `"]')`)
	ann.waitJS(`document.body.classList.contains('page-profile') && document.querySelector('h1').textContent == 'Bob'`, "Bob's profile from the table")
}

// chartClashes lists the texts of the rating chart that overlap another
// text, an axis or the page's edge ("" when none does).
const chartClashes = `(() => {
  const svg = document.querySelector('svg.rating-chart');
  const texts = [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()]);
  const axes = [...svg.querySelectorAll('line.axis')].map((l) => l.getBoundingClientRect());
  const frame = svg.getBoundingClientRect();
  const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  texts.forEach(([s, r], i) => {
    texts.slice(i + 1).forEach(([s2, r2]) => { if (hit(r, r2)) out.push(s + ' / ' + s2); });
    axes.forEach((a) => { if (hit(r, a)) out.push(s + ' / axis'); });
    if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5) out.push(s + ' / edge');
  });
  return out.join('; ');
})()`
