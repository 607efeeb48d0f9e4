// The replay's analysis panel: the search bot's evaluation of every legal
// move at the position shown, with the move played next and the best one
// marked. Only finished games are analysed (the API answers 403 while a
// game runs), and an analysis costs the server a worker's time, so it is
// asked for by a button; one the browser already holds is shown at once.
import { gamePath, el, seatName, ApiError } from './api.js';
import { t, num, say, apiLang, lang } from './i18n.js';

// shortList is how many moves are listed before "all moves".
const shortList = 8;
// maxPolls bounds the polling of one analysis (the worker's own limit is
// five minutes).
const maxPolls = 150;
// maxKept bounds the analyses kept in the browser's storage.
const maxKept = 200;

// fetchAnalysis asks for the analysis at version v: {status: 200, data}
// or {status: 202, retry} (seconds).
async function fetchAnalysis(id, v) {
  let res;
  try {
    res = await fetch(gamePath(id, `/analysis?version=${v}`), { headers: { Accept: 'application/json', 'Accept-Language': apiLang }, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, { detail: t('web.js.error.unreachable') });
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
  if (res.status === 202) return { status: 202, retry: Math.min(30, Math.max(1, Number(res.headers.get('Retry-After')) || 2)) };
  if (!res.ok) throw new ApiError(res.status, data, res.headers.get('Content-Language') || '');
  return { status: 200, data };
}

// An analysis never changes once made, so the page keeps the ones it
// got in localStorage and shows them again without asking: a peek at the
// HTTP cache (fetch with only-if-cached) would log a failed request in
// the console for every position not analysed yet.
const keyPrefix = 'azuld.analysis.';
const storeKey = (id, v) => `${keyPrefix}${id}.${v}`;

function stored(id, v) {
  try {
    const text = localStorage.getItem(storeKey(id, v));
    return text ? JSON.parse(text) : null;
  } catch {
    return null; // storage refused or spoilt: the button asks the server
  }
}

function keep(id, v, data) {
  const ours = () => Object.keys(localStorage).filter((k) => k.startsWith(keyPrefix));
  try {
    // A full store (or too many analyses) starts afresh: every analysis
    // can be asked for again.
    if (ours().length >= maxKept) ours().forEach((k) => localStorage.removeItem(k));
    localStorage.setItem(storeKey(id, v), JSON.stringify(data));
  } catch {
    try {
      ours().forEach((k) => localStorage.removeItem(k));
      localStorage.setItem(storeKey(id, v), JSON.stringify(data));
    } catch { /* no storage: the analysis is asked for again next time */ }
  }
}

const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));

// request starts (once per version) the analysis of version v and polls
// it until it is ready, honouring Retry-After; redraw is called whenever
// its state changes.
function request(a, v, redraw) {
  if (a.items.has(v) && a.items.get(v).state !== 'error') return;
  const item = { state: 'computing', since: Date.now() };
  a.items.set(v, item);
  redraw(v);
  (async () => {
    try {
      for (let i = 0; i < maxPolls; i++) {
        const got = await fetchAnalysis(a.id, v);
        if (got.status === 200) {
          Object.assign(item, { state: 'done', data: got.data });
          keep(a.id, v, got.data);
          return;
        }
        await sleep(got.retry);
      }
      throw new ApiError(0, { detail: t('web.js.an.too_long') });
    } catch (err) {
      Object.assign(item, { state: 'error', error: err.message });
    } finally {
      redraw(v);
    }
  })();
}

// newAnalysis keeps the analyses a replay page has asked for.
export function newAnalysis(id) {
  return { id, items: new Map(), expanded: new Set() };
}

const dec = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
// tenths rounds to the one decimal the panel shows, so that neither a
// sign nor a verdict makes a loss of a difference shown as 0.0.
const tenths = (x) => Math.round(x * 10) / 10;
const signed = (x) => { const r = tenths(x); return `${r > 0 ? '+' : r < 0 ? '−' : '±'}${dec.format(Math.abs(r))}`; };
const pct = (x) => new Intl.NumberFormat(lang, { style: 'percent' }).format(Math.round(x * 100) / 100);
// points is a number of points with one decimal: always CLDR's "other"
// form in the four languages (1.0 points, 1,0 punten).
const points = (x) => t('web.js.an.points', { N: dec.format(Math.abs(x)) });

// searched reports whether the search looked into a move. An analysis
// made before it said so has no field: then a move with more than the one
// playout every move gets first counts as searched.
const searched = (m) => m.searched ?? m.visits > 1;

// ranked is the analysis's moves, best first, in the order the server
// ranked them: by the playouts the search gave them. An analysis made
// before the server ranked them is put in that order here, the best one
// first among moves tried alike.
function ranked(d) {
  const moves = [...d.moves];
  if (moves.every((m) => Number.isInteger(m.rank))) return moves.sort((x, y) => x.rank - y.rank);
  return moves.sort((x, y) => (y.visits || 0) - (x.visits || 0) || (y.notation === d.best) - (x.notation === d.best));
}

// verdict is the line that says how the move played compares with the
// best: both as the ranking has them, so that the two always agree.
function verdict(d, moves, played, who, v, ruleset) {
  const best = moves[0];
  const line = (cls, ...parts) => el('p', { class: `verdict-line${cls ? ` ${cls}` : ''}` }, ...parts);
  const args = { Who: who, Version: v + 1 };
  if (!played) return line('', t('web.js.an.not_evaluated', { ...args, Move: say(d.played, ruleset) }));
  if (played === best) return line('good', t('web.js.an.best', args));
  const wins = { Played: pct(played.win_rate), Best: pct(best.win_rate) };
  // A move the search did not look into has a playout or few to its
  // name: too few to say by how much it was worse.
  if (!searched(played)) return line('', t('web.js.an.unsearched', { ...args, Count: played.visits || 0 }));
  const loss = tenths(best.score_diff - played.score_diff);
  if (loss > 0) {
    return line(loss >= 2 ? 'bad' : '', `${t('web.js.an.lost', args)} `, el('strong', { class: 'loss' }, points(loss)), ` ${t('web.js.an.against', wins)}`);
  }
  if (loss < 0) {
    // Fewer playouts, a higher mean: the search still trusts the best
    // more, and the line says so rather than call a gain a loss.
    return line('', `${t('web.js.an.gained', args)} `, el('strong', {}, points(loss)), ` ${t('web.js.an.gained_against', wins)}`);
  }
  return line('', t('web.js.an.equal', { ...args, ...wins }));
}

// analysisPanel draws the panel for the position at version v into
// section; ctx has the game (r.game), the events (by version) and
// whether an undone branch is shown. show(v) redraws when the panel
// changes and v is still shown.
export function analysisPanel(section, a, ctx, v, isShown) {
  // A keyboard user whose button is replaced (asked, computed) keeps
  // their place: the panel takes the focus.
  const focused = section.contains(document.activeElement) && document.activeElement !== section;
  draw(section, a, ctx, v, isShown);
  if (focused && !section.contains(document.activeElement)) {
    section.tabIndex = -1;
    section.focus({ preventScroll: true });
  }
}

function draw(section, a, ctx, v, isShown) {
  const { game, events, branch } = ctx;
  section.replaceChildren();
  delete section.dataset.state;
  if (game.status !== 'finished') return; // no help while a game is played
  section.append(el('h3', {}, t('web.js.an.heading')));
  const next = events.get(v + 1);
  const seat = next?.meta?.actor?.seat;
  const none = (text) => {
    section.dataset.state = 'none';
    section.append(el('p', { class: 'muted' }, text));
  };
  if (branch) return none(t('web.js.an.main_only'));
  if (!next) return none(t('web.js.an.ends_here'));
  if (next.undone) return none(t('web.js.an.taken_back'));
  if (seat === undefined || seat === null) return none(t('web.js.an.no_player'));
  const who = seatName(game, seat);
  const redraw = (at) => { if (isShown(at)) analysisPanel(section, a, ctx, at, isShown); };
  if (!a.items.has(v)) {
    const data = stored(a.id, v);
    if (data) a.items.set(v, { state: 'done', data });
  }
  const item = a.items.get(v);
  if (!item || item.state === 'error') {
    section.dataset.state = item ? 'error' : 'offer';
    section.append(el('p', { class: 'muted' }, t('web.js.an.offer', { Who: who, Version: v + 1 })));
    if (item) section.append(el('p', { class: 'field-error', role: 'alert' }, t('web.js.an.failed', { Error: item.error })));
    section.append(el('button', { type: 'button', id: 'analyse', class: 'secondary', onclick: () => request(a, v, redraw) },
      item ? t('web.js.an.retry') : t('web.js.an.analyse')));
    return;
  }
  if (item.state === 'computing') {
    section.dataset.state = 'computing';
    section.append(el('p', { class: 'computing', role: 'status' }, el('span', { class: 'spinner', 'aria-hidden': 'true' }),
      t('web.js.an.computing', { Who: who })));
    return;
  }
  section.dataset.state = 'done';
  result(section, a, item.data, game, v, redraw);
}

// result lists the evaluated moves, best first.
function result(section, a, d, game, v, redraw) {
  if (d.seat < 0 || !(d.moves || []).length) {
    section.append(el('p', { class: 'muted' }, t('web.js.an.nothing')));
    return;
  }
  const moves = ranked(d);
  const best = moves[0];
  const played = moves.find((m) => m.notation === d.played);
  const ruleset = game.ruleset;
  section.append(verdict(d, moves, played, seatName(game, d.seat), v, ruleset));
  const all = a.expanded.has(v);
  const shown = all ? moves : moves.filter((m, i) => i < shortList || m === played);
  const body = el('tbody', {});
  let gap = false;
  moves.forEach((m, i) => {
    if (!shown.includes(m)) { gap = true; return; }
    if (gap) {
      body.append(el('tr', { class: 'gap' }, el('td', { colspan: 4 }, '⋯')));
      gap = false;
    }
    const tags = [m === played ? el('span', { class: 'mark played' }, t('web.js.an.played')) : '', m === best ? el('span', { class: 'mark best' }, t('web.js.an.best_tag')) : ''];
    // A move not searched shows no figures: one playout's +20 and 100 %
    // would read as the best move of all.
    const figures = searched(m)
      // The interval goes under the figure, beside the playouts.
      ? [el('td', { class: 'num' }, signed(m.score_diff), m.score_diff_margin > 0 ? [el('br'), el('span', { class: 'muted margin' }, `± ${dec.format(m.score_diff_margin)}`)] : ''),
        el('td', { class: 'num' }, pct(m.win_rate))]
      : [el('td', { colspan: 2, class: 'num muted not-searched', title: t('web.js.an.not_searched_title', { Count: m.visits || 0 }) }, t('web.js.an.not_searched'))];
    body.append(el('tr', { class: [m === played ? 'played' : '', m === best ? 'best' : ''].join(' ').trim(), 'data-notation': m.notation },
      el('td', { class: 'rank' }, num(i + 1)),
      // The playouts go under the move rather than in a column of their
      // own: the side panel is narrow, and the words for them are long.
      el('th', { scope: 'row', class: 'move' }, el('span', {}, say(m.notation, ruleset)), ...tags, el('br'),
        el('span', { class: 'muted visits', title: t('web.js.an.playouts_title') }, t('web.js.an.playouts', { Count: m.visits || 0 }))),
      ...figures));
  });
  section.append(el('table', { class: 'analysis' },
    el('caption', { class: 'muted' }, `${t('web.js.an.legal_moves', { Count: moves.length })} · ${t('web.js.an.playouts', { Count: d.playouts })}`),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, '#'), el('th', { scope: 'col' }, t('web.js.an.move')),
      el('th', { scope: 'col', class: 'num', title: t('web.js.an.points_title') }, t('web.js.an.points_col')),
      el('th', { scope: 'col', class: 'num', title: t('web.js.an.win_title') }, t('web.js.an.win_col')))),
    body));
  if (moves.length > shown.length || all) {
    section.append(el('button', { type: 'button', class: 'linklike more', 'aria-expanded': all ? 'true' : 'false', onclick: () => {
      if (all) a.expanded.delete(v); else a.expanded.add(v);
      redraw(v);
      section.querySelector('button.more')?.focus();
    } }, all ? t('web.js.an.fewer') : t('web.js.an.all', { Count: moves.length })));
  }
  section.append(el('p', { class: 'hint' }, t('web.js.an.hint')));
}
