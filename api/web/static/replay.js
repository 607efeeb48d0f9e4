// Replay and inspection: every version of a game on a slider, the board
// as it was (GET state?version=N), the step's events and what changed
// (GET diff), rounds as chapters, taken-back moves as side branches, the
// take-back buttons, the fairness panel, the export and, once the game is
// finished, the search bot's analysis of a position.
import { api, gamePath, el, seatName, allEvents, prose } from './api.js';
import { drawOffer, drawBoard, tileRow, isPavilion, startTile } from './draw.js';
import { markChanges, describeFinal, rulesetName, actorText, markWild } from './common.js';
import { t, num, time, colour } from './i18n.js';
import { takebackPanel, takebackTracker } from './takeback.js';
import { readMessages, replayTalk } from './talk.js';

export async function startReplay(root) {
  const r = { root, id: root.dataset.game, states: new Map(), branch: null, seq: 0, takebacks: takebackTracker() };
  root.classList.add('replay-view');
  root.replaceChildren(
    el('header', { class: 'game-head' }, el('h1', { id: 'title' }, t('web.js.rp.replay')), el('p', { id: 'status' })),
    el('p', { id: 'notice', class: 'notice', role: 'status', 'aria-live': 'polite', hidden: true }),
    el('nav', { id: 'controls', 'aria-label': t('web.js.rp.controls') }),
    el('div', { class: 'replay-grid' },
      el('div', { id: 'stage' }, el('section', { id: 'offer', 'aria-label': t('web.js.offer') }), el('section', { id: 'boards', 'aria-label': t('web.js.boards') })),
      el('aside', { id: 'side' },
        el('section', { id: 'step', 'aria-live': 'polite', 'aria-label': t('web.js.rp.this_step') }),
        el('section', { id: 'talk', class: 'talk', 'aria-label': t('talk.web.heading') }),
        el('section', { id: 'analysis', 'aria-label': t('web.js.an.label') }),
        el('section', { id: 'chapters', 'aria-label': t('web.js.rp.chapters') }),
        el('section', { id: 'tb' }),
        el('section', { id: 'fair', 'aria-label': t('web.js.fair.heading') }))),
  );
  await loadMeta(r);
  const want = Number(new URLSearchParams(location.search).get('version') || root.dataset.version || r.main[r.main.length - 1]);
  goTo(r, want);
  document.addEventListener('keydown', (e) => {
    const tag = e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
    const map = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(e.key in map)) return;
    e.preventDefault();
    step(r, map[e.key]);
  });
  fairness(r);
  follow(r);
}

// loadMeta reads the game, its log and its rounds, and splits the log
// into the main line and the undone branches.
async function loadMeta(r) {
  const [game, events, rounds, talk] = await Promise.all([
    api('GET', gamePath(r.id)), allEvents(r.id),
    // Chapters are a help: a game without rounds yet still replays.
    api('GET', gamePath(r.id, '/rounds')).catch(() => ({ rounds: [] })),
    // The table talk, for those who may read it (else an empty list).
    readMessages(r.id),
  ]);
  r.game = game;
  r.talk = talk.messages || [];
  r.takebacks.seen(game).then((o) => o && say(r, o.text, o.kind), () => {});
  r.events = new Map(events.map((e) => [e.version, e]));
  r.main = events.filter((e) => !e.undone).map((e) => e.version);
  const branches = new Map();
  for (const e of events.filter((x) => x.undone)) {
    if (!branches.has(e.undone_by)) branches.set(e.undone_by, []);
    branches.get(e.undone_by).push(e.version);
  }
  r.branches = [...branches].map(([by, versions]) => ({ by, versions, fork: versions[0] - 1 }));
  r.rounds = Array.isArray(rounds) ? rounds : (rounds.rounds || []);
  r.root.querySelector('#title').replaceChildren(t('web.js.rp.title', { Title: rulesetName(game) }));
  r.root.querySelector('#status').replaceChildren(
    `${(game.seats || []).map((s) => seatName(game, s.seat)).join(` ${t('web.js.rp.vs')} `)} · ${t(`web.js.status.${['open', 'active', 'finished'].includes(game.status) ? game.status : 'active'}`)} · ${t('web.js.rp.versions', { Count: game.version })} `,
    el('a', { class: 'link', href: `/games/${encodeURIComponent(r.id)}` }, t('web.js.rp.back')), ' ',
    el('a', { class: 'link', href: gamePath(r.id, '/export'), download: `${r.id}.jsonl` }, t('web.js.rp.export')));
  chapters(r);
  const tb = r.root.querySelector('#tb');
  tb.replaceChildren();
  if (game.status === 'active' && (game.your_seats || []).length && game.takebacks !== false) {
    tb.append(takebackPanel(game, async () => { const end = atEnd(r); await loadMeta(r); if (end) goTo(r, r.main[r.main.length - 1]); }, (m, k) => say(r, m, k), r.takebacks));
  }
}

function say(r, text, kind = '') {
  const n = r.root.querySelector('#notice');
  n.hidden = !text;
  n.className = `notice ${kind}`;
  n.textContent = text || '';
}

const line = (r) => (r.branch ? [r.branch.fork, ...r.branch.versions].filter((v) => v >= 1) : r.main);
const atEnd = (r) => !r.branch && r.version === r.main[r.main.length - 1];

function chapters(r) {
  const c = r.root.querySelector('#chapters');
  c.replaceChildren(el('h3', {}, t('web.js.rp.rounds')));
  const ol = el('ol', { class: 'rounds' });
  for (const rd of r.rounds) {
    const scores = (rd.scores || []).map(num).join(' – ');
    const moves = t('web.js.rp.round_moves', { From: rd.from_version, To: rd.to_version, Count: rd.moves });
    const back = rd.taken_back ? `, ${t('web.js.rp.round_taken_back', { Count: rd.taken_back })}` : '';
    ol.append(el('li', {}, el('button', { type: 'button', class: 'linklike', 'data-round': rd.round, onclick: () => goTo(r, rd.from_version) },
      t('web.js.round', { N: rd.round })), ` ${moves}${back}${scores ? `; ${scores}` : ''}`));
  }
  c.append(ol);
  if (r.branches.length) {
    c.append(el('h3', {}, t('web.js.rp.taken_back')));
    const ul = el('ul', { class: 'branches' });
    r.branches.forEach((b, i) => {
      const first = r.events.get(b.versions[0]);
      ul.append(el('li', { class: 'branch' }, el('button', { type: 'button', class: 'linklike', 'data-branch': i, onclick: () => openBranch(r, i) },
        t('web.js.rp.branch', { Fork: b.fork, Count: b.versions.length, By: b.by })),
      first && first.description ? el('span', { class: 'muted' }, ` (${first.description})`) : ''));
    });
    c.append(ul);
  }
}

function openBranch(r, i) {
  r.branch = { ...r.branches[i], index: i };
  goTo(r, r.branch.versions[0]);
}

// goTo shows version v; a version of an undone branch opens its branch.
function goTo(r, v) {
  if (!r.main.includes(v) && !(r.branch && line(r).includes(v))) {
    const i = r.branches.findIndex((b) => b.versions.includes(v));
    if (i >= 0) r.branch = { ...r.branches[i], index: i };
    else {
      r.branch = null;
      v = r.main.find((x) => x >= v) ?? r.main[r.main.length - 1];
    }
  }
  show(r, v);
}

function step(r, d) {
  const l = line(r);
  const i = l.indexOf(r.version);
  const j = Math.max(0, Math.min(l.length - 1, (i < 0 ? 0 : i) + (Number.isFinite(d) ? d : d > 0 ? l.length : -l.length)));
  show(r, l[j]);
}

async function state(r, v) {
  if (!r.states.has(v)) r.states.set(v, api('GET', gamePath(r.id, `/state?version=${v}`)));
  return r.states.get(v);
}

function controls(r) {
  const l = line(r);
  const i = l.indexOf(r.version);
  const nav = r.root.querySelector('#controls');
  const btn = (label, d, id) => el('button', { type: 'button', id, class: 'step', 'aria-label': label, title: label, onclick: () => step(r, d) }, { first: '|◀', prev: '◀', next: '▶', last: '▶|' }[id]);
  const slider = el('input', { type: 'range', id: 'slider', min: 0, max: l.length - 1, value: i, 'aria-label': t('web.js.rp.version_label'),
    'aria-valuetext': t('web.js.rp.version', { N: r.version }) });
  slider.addEventListener('input', () => show(r, l[Number(slider.value)]));
  nav.replaceChildren(
    btn(t('web.js.rp.first'), -Infinity, 'first'), btn(t('web.js.rp.prev'), -1, 'prev'), slider, btn(t('web.js.rp.next'), 1, 'next'), btn(t('web.js.rp.last'), Infinity, 'last'),
    el('span', { id: 'where' }, r.branch ? t('web.js.rp.where_branch', { Step: i + 1, Steps: l.length, Version: r.version }) : t('web.js.rp.where', { Version: r.version, Latest: r.main[r.main.length - 1] })),
    r.branch ? el('button', { type: 'button', id: 'main-line', class: 'secondary', onclick: () => { const f = r.branch.fork; r.branch = null; goTo(r, f); } }, t('web.js.rp.main_line')) : '',
  );
  if (document.activeElement === document.body || !document.activeElement) return;
}

async function show(r, v) {
  const seq = ++r.seq;
  r.version = v;
  const slider = r.root.querySelector('#slider');
  const hadFocus = document.activeElement && document.activeElement.id;
  controls(r);
  if (hadFocus && r.root.querySelector(`#${hadFocus}`)) r.root.querySelector(`#${hadFocus}`).focus();
  const url = new URL(location.href);
  url.searchParams.set('version', v);
  history.replaceState(null, '', url);
  const l = line(r);
  const prev = l[l.indexOf(v) - 1];
  let st, diff = null;
  try {
    [st, diff] = await Promise.all([state(r, v), prev ? api('GET', gamePath(r.id, `/diff?from=${prev}&to=${v}`)) : null]);
  } catch (err) {
    say(r, t('web.js.rp.cannot_show', { Version: v, Error: err.message }), 'error');
    return;
  }
  if (seq !== r.seq) return;
  draw(r, st);
  stepPanel(r, v, diff);
  replayTalk(r.root.querySelector('#talk'), r.talk || [], v);
  analyse(r, v);
  if (diff) markChanges(r.root.querySelector('#stage'), diff.changes, true);
  r.root.dataset.branch = r.branch ? r.branch.index : '';
  r.root.dataset.shownVersion = v;
  void slider;
}

function draw(r, st) {
  const offer = r.root.querySelector('#offer');
  const boards = r.root.querySelector('#boards');
  offer.replaceChildren();
  boards.replaceChildren();
  const g = { ...st, seats: st.seats || r.game.seats };
  r.root.classList.toggle('undone', !!r.branch);
  if (!g.players || !g.players.length || !g.factories) {
    boards.append(el('p', { class: 'muted' }, t('web.js.rp.not_started')));
    return;
  }
  offer.append(el('p', { class: 'roundline' }, t('web.js.round', { N: g.round }),
    isPavilion(g) && g.wild ? el('span', { class: `wild t-${g.wild}` }, t('web.js.wild', { Colour: colour(g.wild) })) : ''));
  offer.append(drawOffer(g));
  for (const p of g.players) {
    const card = el('article', { class: `player${(g.to_act || []).includes(p.seat) ? ' acting' : ''}`, 'data-seat': p.seat },
      el('header', {}, el('h2', {}, seatName(g, p.seat)),
        p.marker ? startTile() : '', p.passed ? el('span', { class: 'chip' }, t('web.js.passed')) : '',
        el('span', { class: 'score', 'data-path': `players[${p.seat}].score`, 'data-val': p.score, 'aria-label': t('web.js.score', { Score: num(p.score) }) }, num(p.score))),
      drawBoard(g, p.seat));
    if (isPavilion(g)) {
      card.append(el('div', { class: 'holdings' },
        el('span', { class: 'label' }, t('web.js.hand')), tileRow(p.hand, true, `players[${p.seat}].hand`, 'hand'),
        el('span', { class: 'label' }, t('web.js.kept')), tileRow(p.kept, true, `players[${p.seat}].kept`, 'kept')));
    }
    boards.append(card);
  }
  markWild(r.root.querySelector('#stage'), g);
  if (g.final) boards.append(describeFinal(g));
}

function stepPanel(r, v, diff) {
  const p = r.root.querySelector('#step');
  const ev = r.events.get(v);
  const g = r.game;
  p.replaceChildren(el('h3', {}, t('web.js.rp.step', { Version: v })));
  if (ev) {
    const channel = ['web', 'api', 'email', 'cli'].includes(ev.meta?.channel) ? t(`web.js.channel.${ev.meta.channel}`) : t('web.js.channel.server');
    p.append(el('div', { class: `event${ev.undone ? ' undone' : ''}`, 'data-version': v, 'data-type': ev.type },
      el('p', { class: 'desc' }, ev.description || t('web.js.rp.event', { Version: v })),
      el('p', { class: 'meta' }, `${actorText(g, ev.meta)} · ${channel} · ${time(ev.recorded_at)}`),
      ev.undone ? el('p', { class: 'tag' }, t('web.js.rp.undone', { By: ev.undone_by })) : ''));
  }
  if (diff && diff.scores && diff.scores.length) {
    p.append(el('p', { class: 'scores' }, diff.scores.map((s) => `${seatName(g, s.seat)} ${s.delta > 0 ? '+' : s.delta < 0 ? '−' : ''}${num(Math.abs(s.delta))} → ${num(s.to)}`).join(' · ')));
  }
  if (diff && diff.events && diff.events.length > 1) {
    const ul = el('ul', { class: 'between' });
    for (const e of diff.events) ul.append(el('li', { class: e.undone ? 'undone' : '' }, prose(diff) && e.description ? `v${e.version} ${e.description}` : t('web.js.rp.event', { Version: e.version })));
    p.append(el('details', {}, el('summary', {}, t('web.js.rp.events_since', { Count: diff.events.length })), ul));
  }
}

// analyse draws the analysis panel of version v. Only a finished game
// is analysed, so only its replay loads the module.
async function analyse(r, v) {
  if (r.game.status !== 'finished') return;
  r.analysisModule ||= import('./analysis.js');
  let mod;
  try {
    mod = await r.analysisModule;
  } catch {
    r.analysisModule = null; // asked again at the next step
    return;
  }
  const { newAnalysis, analysisPanel } = mod;
  r.analysis ||= newAnalysis(r.id);
  const isShown = (at) => r.version === at && r.root.dataset.shownVersion === String(at);
  if (r.version !== v) return;
  analysisPanel(r.root.querySelector('#analysis'), r.analysis, { game: r.game, events: r.events, branch: r.branch }, v, isShown);
}

async function fairness(r) {
  const f = r.root.querySelector('#fair');
  f.replaceChildren(el('h3', {}, t('web.js.fair.heading')));
  try {
    const v = await api('GET', gamePath(r.id, '/verify'));
    const result = ['pass', 'fail', 'committed'].includes(v.result) ? t(`web.js.fair.result.${v.result}`) : String(v.result);
    const dl = el('dl', { class: 'fair' },
      el('dt', {}, t('web.js.fair.commitment')), el('dd', {}, el('code', {}, v.seed_commitment || '—')),
      el('dt', {}, t('web.js.fair.seed')), el('dd', {}, v.seed ? el('code', {}, v.seed) : t('web.js.fair.revealed_later')),
      el('dt', {}, t('web.js.fair.check')), el('dd', { id: 'verify-result', class: `verdict ${v.result}`, 'data-result': v.result },
        t('web.js.fair.replayed', { Result: result, Moves: t('web.js.fair.moves', { Count: v.commands }), Draws: t('web.js.fair.draws', { Count: v.reveals }) })),
    );
    if (v.mismatch) dl.append(el('dt', {}, t('web.js.fair.mismatch')), el('dd', {}, `v${v.mismatch.version}: ${v.mismatch.reason}`));
    f.append(dl);
  } catch (err) {
    f.append(el('p', { class: 'muted' }, t('web.js.fair.unavailable', { Error: err.message })));
  }
}

// follow keeps a running game's replay current; at the last version it
// moves on with the game.
function follow(r) {
  if (r.game.status === 'finished') return;
  const connect = () => {
    const es = new EventSource(gamePath(r.id, '/stream'));
    es.addEventListener('error', () => { if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000); });
    es.addEventListener('state', async (m) => {
      if (Number(m.lastEventId) <= r.game.version) return;
      const end = atEnd(r);
      await loadMeta(r);
      if (end) goTo(r, r.main[r.main.length - 1]);
      else controls(r);
      if (r.game.status === 'finished') { es.close(); fairness(r); analyse(r, r.version); }
    });
  };
  connect();
}
