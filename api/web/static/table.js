// The table: the game drawn from GET /v1/games/{id}, moves chosen by
// clicks or keys among the server's legal moves, live updates from the
// game's server-sent events.
import { api, gamePath, el, seatName, profilePath, ApiError, prose } from './api.js';
import { drawOffer, drawBoard, tileRow, isPavilion, starName, s as svgEl, tile, ordered, startTile } from './draw.js';
import { markChanges, describeFinal, rulesetName, markWild } from './common.js';
import { t as tr, colour, say, time, list, num, tileOf } from './i18n.js';
import { takebackPanel, takebackTracker } from './takeback.js';
import { rematchPanel } from './rematch.js';
import { hintPanel } from './hint.js';
import { enhanceTalk } from './talk.js';

export async function startTable(root) {
  const id = root.dataset.game;
  const t = {
    root, id, game: null, sel: null, chooser: null, busy: false, notice: '', takebacks: takebackTracker(), hint: {},
  };
  root.classList.add('table-view');
  // The server's join form (a free seat) is kept: it works without script.
  t.join = root.querySelector('form.join');
  // So is its table-talk panel, which the script then takes over.
  t.talkSection = root.querySelector('section#talk');
  // And the invitation link of an open game's free seats, with its copy
  // button (copy.js) and QR code.
  t.invite = root.querySelector('section#invite');
  root.replaceChildren(
    el('header', { class: 'game-head' }, el('h1', { id: 'title' }, tr('web.js.game')), el('p', { id: 'status', 'aria-live': 'polite' })),
    // Once the game is over its result comes first, above the table.
    el('section', { id: 'result', 'aria-label': tr('web.js.final.caption'), hidden: true }),
    el('p', { id: 'notice', class: 'notice', role: 'status', 'aria-live': 'polite', hidden: true }),
    el('section', { id: 'offer', 'aria-label': tr('web.js.offer') }),
    el('section', { id: 'actions', 'aria-label': tr('web.js.your_move_label') }),
    el('section', { id: 'boards', 'aria-label': tr('web.js.boards') }),
    el('section', { id: 'extra' }),
  );
  t.talk = enhanceTalk(t.talkSection, id, root.dataset.player || '', root.dataset.version);
  root.addEventListener('keydown', (e) => onKey(t, e));
  root.addEventListener('click', (e) => {
    const target = e.target.closest ? e.target.closest('.pick') : null;
    if (target && t.handlers?.has(target)) t.handlers.get(target)();
  });
  await reload(t);
  follow(t);
}

// reload reads the game again and redraws; the changes since the last
// version drawn are marked for a moment.
async function reload(t) {
  const before = t.game ? t.game.version : 0;
  const g = await api('GET', gamePath(t.id));
  // Reloads overlap when events come fast; one that answers after a
  // newer one must not draw an older game.
  if (g.version < before) return;
  t.game = g;
  t.sel = null;
  t.chooser = null;
  render(t);
  // A new version may be a message: the panel reads them again.
  if (t.talk && before > 0 && g.version > before) t.talk.refresh().catch(() => {});
  // A take-back request that was pending is answered: the notice that
  // it was asked for gives way to its outcome.
  t.takebacks.seen(g).then((o) => o && notice(t, o.text, o.kind), () => {});
  if (before > 0 && t.game.version > before) {
    try {
      const d = await api('GET', gamePath(t.id, `/diff?from=${before}&to=${t.game.version}`));
      markChanges(t.root, d.changes);
      // The last move: not table talk (the panel shows that), nor the
      // end and the seed revealed then (the result says the one, the
      // replay's fairness panel shows the other).
      const moves = d.events.filter((e) => !notMoves.has(e.type));
      if (moves.length && prose(d)) {
        const last = moves[moves.length - 1];
        setStatusExtra(t, last.description);
      }
    } catch { /* the marks are a courtesy: the board is already current */ }
  }
}

// notMoves are the events the status line does not name as the last
// move.
const notMoves = new Set(['game.message', 'game_ended', 'game.seed_revealed']);

function setStatusExtra(t, text) {
  const p = t.root.querySelector('#lastmove');
  if (p) p.textContent = text ? tr('web.js.last', { Move: text }) : '';
}

function notice(t, text, kind = '') {
  const n = t.root.querySelector('#notice');
  n.hidden = !text;
  n.className = `notice ${kind}`;
  n.textContent = text || '';
}

// follow opens the game's event stream. EventSource reconnects by
// itself after a dropped connection (sending Last-Event-ID), but gives
// up when a connection cannot be made at all; then a new one is opened
// after a pause. Every "state" message newer than the board reloads it,
// so a page that was offline catches up.
function follow(t) {
  // A finished game is followed on for its players until its rematch
  // exists, so that "Go to the rematch" appears when another asks.
  const over = (g) => g.status === 'finished' && (g.rematch || !(g.your_seats || []).length);
  if (over(t.game)) return;
  const live = (on) => { t.root.dataset.live = on ? 'on' : 'off'; renderLive(t); };
  const connect = () => {
    const es = new EventSource(gamePath(t.id, '/stream'));
    es.addEventListener('open', () => live(true));
    es.addEventListener('error', () => {
      live(false);
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    });
    es.addEventListener('state', (m) => {
      const v = Number(m.lastEventId);
      if (v > t.game.version && !t.busy) reload(t).catch((err) => notice(t, err.message, 'error'));
      if (over(t.game)) es.close();
    });
  };
  connect();
}

function renderLive(t) {
  const b = t.root.querySelector('#live');
  if (!b) return;
  const on = t.root.dataset.live === 'on';
  b.hidden = t.game.status === 'finished' || !t.root.dataset.live;
  b.textContent = on ? tr('web.js.live') : tr('web.js.reconnecting');
  b.className = `live ${on ? 'on' : 'off'}`;
}

function myMoves(t) {
  return (t.game.legal_moves || []).map((m) => ({ ...m, m: typeof m.move === 'string' ? JSON.parse(m.move) : m.move }));
}

function render(t) {
  const g = t.game;
  const root = t.root;
  root.dataset.version = g.version;
  root.dataset.status = g.status;
  root.dataset.phase = g.phase || '';
  const moves = myMoves(t);
  root.dataset.myTurn = moves.length ? 'yes' : 'no';
  const pav = isPavilion(g);
  root.querySelector('#title').replaceChildren(
    el('span', {}, rulesetName(g)), ' ',
    g.round ? el('span', { class: 'round' }, tr('web.js.round', { N: g.round })) : '',
    pav && g.wild ? el('span', { class: `wild t-${g.wild}` }, tr('web.js.wild', { Colour: colour(g.wild) })) : '',
    el('span', { id: 'live', class: 'live' }),
    !(g.your_seats || []).length && g.status === 'active' ? el('span', { id: 'watching', class: 'chip watching' }, tr('web.js.watching')) : '',
  );
  renderLive(t);
  const who = list((g.to_act || []).map((s) => seatName(g, s)));
  root.querySelector('#status').replaceChildren(
    g.status === 'finished' ? `${tr('web.js.status.over')} ` : g.status === 'open' ? `${tr('web.js.status.open')} `
      : moves.length ? el('strong', {}, `${tr('web.js.status.your_move')} `) : `${tr('web.js.status.waiting', { Who: who })} `,
    el('span', { id: 'lastmove' }),
    ' ', el('a', { href: `/games/${encodeURIComponent(t.id)}/replay?version=${g.version}`, class: 'link' }, tr('web.js.replay')),
    ' ', el('span', { id: 'settings', class: 'settings' }, settingsText(g)),
  );
  const result = root.querySelector('#result');
  result.hidden = !g.final;
  result.replaceChildren(...(g.final ? [el('p', { class: 'winners' }, winnersText(g)), describeFinal(g)] : []));
  const offer = root.querySelector('#offer');
  offer.replaceChildren();
  if (g.factories) offer.append(drawOffer(g));

  const boards = root.querySelector('#boards');
  boards.replaceChildren();
  const mine = new Set(g.your_seats || []);
  const order = (g.players || []).map((p) => p.seat).sort((a, b) => (mine.has(b) - mine.has(a)) || a - b);
  for (const seat of order) {
    const p = g.players[seat];
    const card = el('article', { class: `player${mine.has(seat) ? ' me' : ''}${(g.to_act || []).includes(seat) ? ' acting' : ''}`, 'data-seat': seat },
      el('header', {},
        el('h2', {}, profilePath(g, seat) ? el('a', { href: profilePath(g, seat), class: 'profile-link' }, seatName(g, seat)) : seatName(g, seat)),
        p.marker ? startTile() : '',
        p.passed ? el('span', { class: 'chip' }, tr('web.js.passed')) : '',
        el('span', { class: 'score', 'data-path': `players[${seat}].score`, 'data-val': p.score, 'aria-label': tr('web.js.score', { Score: num(p.score) }) }, num(p.score))),
      drawBoard(g, seat));
    if (pav) {
      card.append(el('div', { class: 'holdings' },
        el('span', { class: 'label' }, tr('web.js.hand')), tileRow(p.hand, true, `players[${seat}].hand`, 'hand'),
        el('span', { class: 'label' }, tr('web.js.kept')), tileRow(p.kept, true, `players[${seat}].kept`, 'kept')));
    }
    boards.append(card);
  }
  markWild(root, g);
  const extra = root.querySelector('#extra');
  extra.replaceChildren();
  const resign = moves.find((m) => m.m.type === 'resign');
  const listed = moves.filter((m) => m !== resign);
  // The hint comes first, right under the boards it is about.
  const hint = hintPanel(g, listed, t.hint, (m) => send(t, m));
  if (hint) extra.append(hint);
  const rematch = rematchPanel(g, root.dataset.player || '', () => reload(t), (m, k) => notice(t, m, k));
  if (rematch) extra.append(rematch);
  if (g.status === 'open' && t.invite) extra.append(t.invite);
  if (g.status === 'open' && t.join) extra.append(t.join);
  if (t.talkSection) extra.append(t.talkSection);
  if (g.deadline && g.status === 'active') {
    extra.append(el('p', { class: 'deadline' }, `${who ? tr('web.js.deadline', { Who: who }) : tr('web.js.deadline_seat')} `,
      el('time', { datetime: g.deadline }, time(g.deadline))));
  }
  if (g.status === 'active' && mine.size && g.takebacks !== false) extra.append(takebackPanel(g, () => reload(t), (m, k) => notice(t, m, k), t.takebacks));
  if (listed.length) extra.append(moveList(t, listed));
  if (resign) {
    extra.append(el('p', { class: 'resign' }, el('button', { type: 'button', class: 'secondary', id: 'resign',
      onclick: () => { if (window.confirm(tr('web.js.resign_confirm'))) send(t, resign); } }, tr('web.js.resign'))));
  }
  setPicks(t);
}

// winnersText names the winners of a finished game and their score.
function winnersText(g) {
  const first = g.final.players.filter((p) => p.rank === 1);
  return tr('web.js.final.won_by', { Winners: list(first.map((p) => seatName(g, p.seat))), Count: first[0]?.score ?? 0 });
}

// settingsText is the game's settings in words: rated or not, public or
// private, take-backs or not.
function settingsText(g) {
  return [g.rated === false ? tr('web.js.settings.unrated') : tr('web.js.settings.rated'),
    g.visibility === 'private' ? tr('web.js.settings.private') : tr('web.js.settings.public'),
    g.takebacks === false ? tr('web.js.settings.no_takebacks') : tr('web.js.settings.takebacks'),
    g.chat === 'public' ? tr('web.js.talk.chat_public') : tr('web.js.talk.chat_players')].join(' · ');
}

// moveList is the plain list of every legal move: the accessible
// fallback to the drawing.
function moveList(t, moves) {
  const d = el('details', { class: 'movelist' }, el('summary', {}, tr('web.js.all_moves', { Count: moves.length })));
  const ul = el('ul', {});
  for (const m of moves) {
    ul.append(el('li', {}, el('button', { type: 'button', class: 'linklike', 'data-notation': m.notation, onclick: () => send(t, m) }, say(m.notation, t.game.ruleset))));
  }
  d.append(ul);
  return d;
}

// setPicks marks what can be chosen now, from the legal moves only.
function setPicks(t) {
  const root = t.root;
  for (const e of root.querySelectorAll('.pick, .sel')) {
    e.classList.remove('pick', 'sel');
    if (e.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
      e.removeAttribute('tabindex');
      e.removeAttribute('role');
    }
  }
  t.handlers = new Map();
  const actions = root.querySelector('#actions');
  actions.replaceChildren();
  root.querySelectorAll('.chooser').forEach((e) => e.remove());
  if (t.busy) return;
  const moves = myMoves(t);
  if (!moves.length) return;
  const boardOf = (seat) => root.querySelector(`.player[data-seat="${seat}"] svg.board`);
  const pick = (e, label, fn) => {
    if (!e) return;
    e.classList.add('pick');
    e.setAttribute('tabindex', '0');
    e.setAttribute('role', 'button');
    if (label) e.setAttribute('aria-label', label);
    t.handlers.set(e, fn);
  };
  if (t.chooser) {
    t.chooser.at?.classList.add('sel');
    const box = t.chooser.keep ? keepChooser(t) : listChooser(t);
    box.append(el('button', { type: 'button', class: 'cancel', onclick: () => { t.chooser = null; setPicks(t); } }, tr('web.js.cancel')));
    placeChooser(t, box, actions);
    focusFirst(t);
    return;
  }
  const src = (m) => String(m.m.factory);
  const takes = moves.filter((m) => m.m.type === 'take');
  const pav = isPavilion(t.game);
  if (takes.length && !t.sel) {
    const seen = new Set();
    for (const m of takes) {
      const k = `${src(m)}|${m.m.color}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const from = src(m) === 'center' ? tr('web.js.from_centre') : tr('web.js.from_factory', { N: Number(src(m)) + 1 });
      const same = takes.filter((x) => src(x) === src(m) && x.m.color === m.m.color);
      root.querySelectorAll(`#offer .grp[data-src="${src(m)}"][data-color="${m.m.color}"]`).forEach((e) =>
        pick(e, tr('web.js.take_label', { Colour: colour(m.m.color), From: from }), () => {
          if (pav) return same.length === 1 ? send(t, same[0]) : choose(t, tr('web.js.take_title', { Colour: colour(m.m.color), From: from }), same);
          t.sel = { src: src(m), color: m.m.color };
          setPicks(t);
        }));
    }
  }
  if (t.sel) {
    root.querySelectorAll(`#offer .grp[data-src="${t.sel.src}"][data-color="${t.sel.color}"]`).forEach((e) => e.classList.add('sel'));
    for (const m of takes.filter((x) => src(x) === t.sel.src && x.m.color === t.sel.color)) {
      const line = String(m.m.line);
      pick(boardOf(m.seat)?.querySelector(`[data-line="${line}"]`),
        line === 'floor' ? tr('web.js.put_floor', { Colour: colour(m.m.color) }) : tr('web.js.put_line', { Colour: colour(m.m.color), N: line }), () => send(t, m));
    }
    actions.append(el('p', { class: 'hint' }, `${tr('web.js.taking', { Colour: colour(t.sel.color) })} `,
      el('button', { type: 'button', class: 'cancel', onclick: () => { t.sel = null; setPicks(t); } }, tr('web.js.cancel'))));
  }
  for (const m of moves.filter((x) => x.m.type === 'tile')) {
    pick(boardOf(m.seat)?.querySelector(`[data-cell="${m.m.line},${m.m.column}"]`),
      tr('web.js.tile_label', { Line: m.m.line, Column: m.m.column }), () => send(t, m));
  }
  const places = moves.filter((m) => m.m.type === 'place');
  const bySpace = new Map();
  for (const m of places) {
    const k = `${m.seat}|${m.m.star},${m.m.space}`;
    if (!bySpace.has(k)) bySpace.set(k, []);
    bySpace.get(k).push(m);
  }
  for (const [k, list] of bySpace) {
    const [seat, sp] = k.split('|');
    const [star, space] = sp.split(',');
    const where = tr('web.js.space_of', { N: space, Star: starName(t.game, Number(seat), Number(star)) });
    const spot = boardOf(seat)?.querySelector(`[data-space="${sp}"]`);
    pick(spot, tr('web.js.place_label', { Where: where }),
      () => (list.length === 1 ? send(t, list[0]) : choose(t, tr('web.js.place_title', { Where: where }), list, placeLabel, spot)));
  }
  const passes = moves.filter((m) => m.m.type === 'pass');
  if (passes.length) {
    actions.append(el('button', { type: 'button', class: 'pick action', onclick: () => (passes.length === 1 ? send(t, passes[0]) : choosePass(t, passes)) }, tr('web.js.pass')));
  }
  const bonus = moves.filter((m) => m.m.type === 'bonus');
  if (bonus.length) {
    choose(t, tr('web.js.bonus_title'), bonus, (m) => m.m.tiles.map(colour).join(' + '));
    return;
  }
  if (places.length) actions.prepend(el('p', { class: 'hint' }, tr('web.js.hint.place')));
  else if (takes.length && !t.sel) actions.prepend(el('p', { class: 'hint' }, tr('web.js.hint.take')));
  else if (moves.some((m) => m.m.type === 'tile')) actions.prepend(el('p', { class: 'hint' }, tr('web.js.hint.tile')));
  focusFirst(t);
}

const placeLabel = (m) => (m.m.wilds ? tr('web.js.paying_wilds', { Colour: colour(m.m.color), Count: m.m.wilds }) : tr('web.js.no_wilds', { Colour: colour(m.m.color) }));

// choose opens a list of moves to choose from; at is the piece of the
// drawing they are about (marked while the list is open).
function choose(t, title, moves, label, at) {
  t.chooser = { title, moves, label, at };
  setPicks(t);
}

// choosePass opens the choice of the tiles kept on passing. Up to four
// hand tiles may be kept: nothing to decide when the hand holds no more,
// so all are chosen at first; else none is.
function choosePass(t, moves) {
  const hand = t.game.players[moves[0].seat].hand || {};
  const tiles = ordered(hand, true).flatMap((c) => Array(hand[c]).fill(c));
  const most = Math.max(...moves.map((m) => m.m.keep.length));
  const kept = new Set(tiles.length <= most ? tiles.keys() : []);
  t.chooser = { title: tr('web.js.pass_title'), moves, keep: { tiles, most, kept } };
  setPicks(t);
}

// listChooser offers each move of the chooser as a button.
function listChooser(t) {
  const c = t.chooser;
  const list = el('div', { class: 'choices' });
  for (const m of c.moves) {
    list.append(el('button', { type: 'button', class: 'pick choice', 'data-notation': m.notation, onclick: () => send(t, m) }, c.label ? c.label(m) : say(m.notation, t.game.ruleset)));
  }
  return el('div', { class: 'chooser', role: 'group', 'aria-label': c.title }, el('h3', {}, c.title), list);
}

// keepChooser lets the hand's tiles be toggled, then passes with the one
// legal pass that keeps exactly those: the server's moves stay the
// source of truth (a set no move keeps cannot be sent).
function keepChooser(t) {
  const c = t.chooser;
  const { tiles, most, kept } = c.keep;
  const toggles = tiles.map((c, i) => el('button', {
    type: 'button', class: 'pick keep-tile', 'aria-label': tileOf(c),
    onclick: () => { if (kept.has(i)) kept.delete(i); else if (kept.size < most) kept.add(i); update(); },
  }, svgEl('svg', { viewBox: '0 0 32 32', width: 32, height: 32, class: 'drawing', 'aria-hidden': 'true' }, tile(c, 16, 16, 28))));
  const count = el('p', { class: 'keep-count', 'aria-live': 'polite' });
  const sameTiles = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();
  const chosen = () => tiles.filter((_, i) => kept.has(i));
  const move = () => c.moves.find((m) => sameTiles(m.m.keep, chosen()));
  const pass = el('button', { type: 'button', class: 'pick choice pass', onclick: () => { const m = move(); if (m) send(t, m); } });
  const update = () => {
    toggles.forEach((b, i) => {
      b.setAttribute('aria-pressed', kept.has(i) ? 'true' : 'false');
      b.disabled = !kept.has(i) && kept.size >= most;
    });
    const gone = tiles.length - kept.size;
    count.textContent = gone ? tr('web.js.keeping_discard', { Kept: kept.size, Most: most, Count: gone }) : tr('web.js.keeping', { Kept: kept.size, Most: most });
    pass.disabled = !move();
    pass.textContent = kept.size ? tr('web.js.pass_keeping', { Tiles: chosen().map(colour).join(tr('web.js.list_separator')) }) : tr('web.js.pass_nothing');
  };
  update();
  const box = el('div', { class: 'chooser', role: 'group', 'aria-label': c.title }, el('h3', {}, c.title),
    el('div', { class: 'keep-tiles' }, toggles), count, el('div', { class: 'choices' }, pass));
  markWild(box, t.game);
  return box;
}

// placeChooser puts an open choice right under the hand of the seat it
// is for (Summer Pavilion: the tiles to pay with or keep are in view) and
// scrolls both into view; without a hand it goes with the other actions.
function placeChooser(t, box, actions) {
  const hand = t.root.querySelector(`.player[data-seat="${t.chooser.moves[0].seat}"] .holdings`);
  if (!hand) {
    actions.append(box);
    return;
  }
  hand.after(box);
  const top = hand.getBoundingClientRect().top, bottom = box.getBoundingClientRect().bottom, margin = 8;
  if (bottom > window.innerHeight - margin) window.scrollBy(0, Math.min(bottom - window.innerHeight + margin, top - margin));
  else if (top < margin) window.scrollBy(0, top - margin);
}

// focusFirst moves the keyboard focus to the first choice, unless the
// player is busy elsewhere on the page (a link, the move list).
function focusFirst(t) {
  const a = document.activeElement;
  if (a && a !== document.body && !t.root.contains(a)) return;
  if (a && a.closest && a.closest('.movelist, .takebacks')) return;
  const first = t.root.querySelector('.chooser .pick:not(:disabled)') || t.root.querySelector('svg .pick') || t.root.querySelector('.pick');
  if (first) first.focus({ preventScroll: true });
}

function onKey(t, e) {
  const target = e.target.closest ? e.target.closest('.pick') : null;
  if ((e.key === 'Enter' || e.key === ' ') && target && t.handlers?.has(target)) {
    e.preventDefault();
    t.handlers.get(target)();
    return;
  }
  if (e.key === 'Escape' && (t.sel || t.chooser)) {
    t.sel = null;
    t.chooser = null;
    setPicks(t);
    return;
  }
  if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(e.key) && target) {
    const all = [...t.root.querySelectorAll('.pick:not(:disabled)')];
    const i = all.indexOf(target);
    const next = all[(i + (e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : all.length - 1)) % all.length];
    if (next) { e.preventDefault(); next.focus(); }
  }
}

// send posts a legal move with If-Match; a 409 means the game moved on.
async function send(t, m) {
  if (t.busy) return;
  t.busy = true;
  t.root.dataset.sending = 'yes';
  setPicks(t);
  try {
    await api('POST', gamePath(t.id, '/moves'), m.m, {
      'If-Match': `"${t.game.version}"`, 'Idempotency-Key': crypto.randomUUID(),
    });
    notice(t, '');
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      notice(t, tr('web.js.moved_on'), 'warn');
    } else {
      notice(t, tr('web.js.refused', { Error: err.message }), 'error');
    }
  } finally {
    t.busy = false;
    delete t.root.dataset.sending;
  }
  await reload(t).catch((err) => notice(t, err.message, 'error'));
}
