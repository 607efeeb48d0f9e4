// Take-back buttons for the players of a running game: request one's
// last move back, accept or decline another player's request.
import { api, gamePath, el, seatName } from './api.js';
import { t, list } from './i18n.js';

export function takebackPanel(g, done, say, track) {
  const mine = new Set(g.your_seats || []);
  const box = el('section', { class: 'takebacks', 'aria-label': t('web.js.tb.label') }, el('h3', {}, t('web.js.tb.heading')));
  const act = async (method, path, body, ok) => {
    try {
      const res = await api(method, gamePath(g.id, path), body);
      if (res?.takeback?.status === 'pending') track?.asked(res.takeback, res.version);
      say(ok, 'ok');
    } catch (err) {
      say(t('web.js.tb.error', { Error: err.message }), 'error');
    }
    await done();
  };
  const pend = g.pending_takeback;
  if (pend) {
    box.append(el('p', { id: 'takeback-pending' }, t('web.js.tb.pending', { Name: seatName(g, pend.seat), Count: pend.moves, Version: pend.to_version })));
    const waiting = (pend.needs || []).filter((s) => !(pend.consents || []).includes(s));
    const mineToAnswer = waiting.filter((s) => mine.has(s));
    if (mineToAnswer.length) {
      box.append(el('button', { type: 'button', id: 'takeback-accept', onclick: () => act('POST', `/takebacks/${pend.id}/accept`, {}, t('web.js.tb.accepted')) }, t('web.js.tb.accept')), ' ',
        el('button', { type: 'button', id: 'takeback-decline', class: 'secondary', onclick: () => act('POST', `/takebacks/${pend.id}/decline`, {}, t('web.js.tb.declined')) }, t('web.js.tb.decline')));
    } else if (mine.has(pend.seat)) {
      box.append(el('button', { type: 'button', id: 'takeback-withdraw', class: 'secondary', onclick: () => act('POST', `/takebacks/${pend.id}/decline`, {}, t('web.js.tb.withdrew')) }, t('web.js.tb.withdraw')));
    } else {
      box.append(el('p', {}, t('web.js.tb.waiting', { Who: list(waiting.map((s) => seatName(g, s))) })));
    }
  } else {
    box.append(el('button', { type: 'button', id: 'takeback-request', class: 'secondary', onclick: () => act('POST', '/takebacks', { moves: 1 }, t('web.js.tb.requested')) }, t('web.js.tb.request')));
  }
  return box;
}

// takebackTracker follows a game's pending take-back request through
// the games a page reads. Reads can answer out of order (a slow reload
// after a faster, later one), so it keeps the newest version seen and
// ignores older games; and the player's own request counts as seen from
// its answer, however soon it is answered. seen(game) resolves to how a
// request ended ({text, kind} for the page's notice) when a game newer
// than the last one with the request pending no longer has it, else null.
export function takebackTracker() {
  let pending = null, version = -1;
  return {
    asked(tb, atVersion) {
      if (atVersion >= version) { pending = tb; version = atVersion; }
    },
    async seen(game) {
      if (!game || game.version < version) return null;
      version = game.version;
      const was = pending;
      pending = game.pending_takeback || null;
      if (!was || pending?.id === was.id) return null;
      return takebackOutcome(game, was);
    },
  };
}

// takebackOutcome says how the request pend ended, now that game no
// longer has it pending.
async function takebackOutcome(after, pend) {
  const tb = await api('GET', gamePath(after.id, `/takebacks/${pend.id}`));
  const mine = new Set(after.your_seats || []);
  const yours = mine.has(tb.seat);
  const name = seatName(after, tb.seat);
  if (tb.status === 'taken_back') {
    return { text: yours ? t('web.js.tb.taken_back_yours', { Count: tb.moves }) : t('web.js.tb.taken_back', { Name: name, Count: tb.moves }), kind: 'ok' };
  }
  if (tb.status === 'declined') {
    const by = tb.declined_by;
    if (by === tb.seat) return { text: mine.has(by) ? t('web.js.tb.you_withdrew') : t('web.js.tb.they_withdrew', { Name: seatName(after, by) }), kind: '' };
    const who = mine.has(by) ? t('web.js.tb.you') : seatName(after, by);
    return { text: yours ? t('web.js.tb.declined_yours', { Who: who, Count: tb.moves }) : t('web.js.tb.declined_by', { Who: who, Name: name, Count: tb.moves }), kind: 'warn' };
  }
  if (tb.status === 'lapsed') return { text: t('web.js.tb.lapsed'), kind: 'warn' };
  return null;
}
