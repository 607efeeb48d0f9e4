// Take-back buttons for the players of a running game: request one's
// last move back, accept or decline another player's request.
import { api, gamePath, el, seatName } from './api.js';

export function takebackPanel(g, done, say, track) {
  const mine = new Set(g.your_seats || []);
  const box = el('section', { class: 'takebacks', 'aria-label': 'Take-backs' }, el('h3', {}, 'Take-back'));
  const act = async (method, path, body, ok) => {
    try {
      const res = await api(method, gamePath(g.id, path), body);
      if (res?.takeback?.status === 'pending') track?.asked(res.takeback, res.version);
      say(ok, 'ok');
    } catch (err) {
      say(`Take-back: ${err.message}`, 'error');
    }
    await done();
  };
  const pend = g.pending_takeback;
  if (pend) {
    box.append(el('p', { id: 'takeback-pending' }, `${seatName(g, pend.seat)} asks to take back ${pend.moves} move${pend.moves > 1 ? 's' : ''} (to version ${pend.to_version}).`));
    const waiting = (pend.needs || []).filter((s) => !(pend.consents || []).includes(s));
    const mineToAnswer = waiting.filter((s) => mine.has(s));
    if (mineToAnswer.length) {
      box.append(el('button', { type: 'button', id: 'takeback-accept', onclick: () => act('POST', `/takebacks/${pend.id}/accept`, {}, 'You accepted the take-back.') }, 'Accept'), ' ',
        el('button', { type: 'button', id: 'takeback-decline', class: 'secondary', onclick: () => act('POST', `/takebacks/${pend.id}/decline`, {}, 'You declined the take-back.') }, 'Decline'));
    } else if (mine.has(pend.seat)) {
      box.append(el('button', { type: 'button', id: 'takeback-withdraw', class: 'secondary', onclick: () => act('POST', `/takebacks/${pend.id}/decline`, {}, 'You withdrew your request.') }, 'Withdraw'));
    } else {
      box.append(el('p', {}, `Waiting for ${waiting.map((s) => seatName(g, s)).join(', ')}.`));
    }
  } else {
    box.append(el('button', { type: 'button', id: 'takeback-request', class: 'secondary', onclick: () => act('POST', '/takebacks', { moves: 1 }, 'Take-back requested: the other players are asked.') }, 'Ask to take back my last move'));
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
  const whose = mine.has(tb.seat) ? 'your' : `${seatName(after, tb.seat)}'s`;
  const moves = tb.moves > 1 ? `last ${tb.moves} moves were` : 'last move was';
  if (tb.status === 'taken_back') return { text: `Take-back accepted: ${whose} ${moves} taken back.`, kind: 'ok' };
  if (tb.status === 'declined') {
    const by = tb.declined_by;
    if (by === tb.seat) return { text: mine.has(by) ? 'You withdrew your take-back request.' : `${seatName(after, by)} withdrew the take-back request.`, kind: '' };
    const who = mine.has(by) ? 'you' : seatName(after, by);
    return { text: `Take-back declined by ${who}: ${whose} ${tb.moves > 1 ? 'moves stand' : 'move stands'}.`, kind: 'warn' };
  }
  if (tb.status === 'lapsed') return { text: 'The take-back request lapsed: a move was made before every player answered.', kind: 'warn' };
  return null;
}
