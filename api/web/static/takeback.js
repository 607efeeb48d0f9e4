// Take-back buttons for the players of a running game: request one's
// last move back, accept or decline another player's request.
import { api, gamePath, el, seatName } from './api.js';

export function takebackPanel(g, done, say) {
  const mine = new Set(g.your_seats || []);
  const box = el('section', { class: 'takebacks', 'aria-label': 'Take-backs' }, el('h3', {}, 'Take-back'));
  const act = async (method, path, body, ok) => {
    try {
      await api(method, gamePath(g.id, path), body);
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
