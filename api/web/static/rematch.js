// The rematch of a finished game: "Rematch" for its players, "Go to the
// rematch" once it exists; on the rematch itself, or on a new game that
// invited players, "Accept" (a join) and "Decline" for a player whose
// seat it keeps, and whom it waits for.
import { api, gamePath, el } from './api.js';
import { t, list } from './i18n.js';

// rematchPanel is the game's rematch section for the player me (an id,
// '' for a visitor), or null when there is nothing to say. done reloads
// the game; say shows a notice.
export function rematchPanel(g, me, done, say) {
  const seated = (g.your_seats || []).length > 0;
  const box = el('section', { class: 'rematch', 'aria-label': t('web.js.rematch.label') });
  const act = async (button, method, path, after) => {
    button.disabled = true;
    try {
      const res = await api(method, gamePath(path.id, path.suffix));
      await after(res);
    } catch (err) {
      say(t('web.js.rematch.error', { Error: err.message }), 'error');
      button.disabled = false;
    }
  };
  if (g.status === 'finished' && seated) {
    if (g.rematch) {
      box.append(el('a', { class: 'button primary', id: 'rematch-go', href: `/games/${encodeURIComponent(g.rematch)}` }, t('web.js.rematch.go')));
    } else {
      const b = el('button', { type: 'button', class: 'primary', id: 'rematch' }, t('web.js.rematch.ask'));
      b.addEventListener('click', () => act(b, 'POST', { id: g.id, suffix: '/rematch' }, (res) => {
        window.location.assign(`/games/${encodeURIComponent(res.id)}`);
      }));
      box.append(b, ' ', el('span', { class: 'muted' }, t('web.js.rematch.ask_hint')));
    }
    return box;
  }
  // An open game with seats kept for invited players (a rematch, or a
  // new game that named them) asks them to accept or decline.
  const kept = g.status === 'open' ? (g.seats || []).filter((s) => !s.player_id && s.reserved) : [];
  const words = g.rematch_of
    ? { invited: t('web.js.rematch.invited'), accepted: t('web.js.rematch.accepted'), declined: t('web.js.rematch.declined') }
    : { invited: t('web.js.invited.invited'), accepted: t('web.js.invited.accepted'), declined: t('web.js.invited.declined') };
  if (!g.rematch_of && (g.status !== 'open' || (!kept.length && !(g.declined || []).length))) return null;
  if (!g.rematch_of) box.setAttribute('aria-label', t('web.js.invited.label'));
  if (g.rematch_of) box.append(el('p', {}, t('web.js.rematch.of'), ' ', el('a', { href: `/games/${encodeURIComponent(g.rematch_of)}` }, t('web.js.rematch.of_link'))));
  if (g.status !== 'open') return box;
  const mine = me ? kept.filter((s) => s.reserved === me) : [];
  const others = [...new Set(kept.filter((s) => s.reserved !== me).map((s) => s.name || t('web.js.rematch.someone')))];
  if (mine.length) {
    box.append(el('p', { class: 'invited' }, words.invited));
    const accept = el('button', { type: 'button', class: 'primary', id: 'rematch-accept' }, t('web.js.rematch.accept'));
    const decline = el('button', { type: 'button', class: 'secondary', id: 'rematch-decline' }, t('web.js.rematch.decline'));
    accept.addEventListener('click', () => act(accept, 'POST', { id: g.id, suffix: '/join' }, async () => {
      say(words.accepted, 'ok');
      await done();
    }));
    decline.addEventListener('click', () => act(decline, 'POST', { id: g.id, suffix: '/decline' }, async () => {
      say(words.declined, 'warn');
      await done();
    }));
    box.append(el('p', {}, accept, ' ', decline));
  }
  if (others.length) box.append(el('p', { class: 'awaiting' }, t('web.js.rematch.awaiting', { Who: list(others), Count: others.length })));
  const declined = (g.declined || []).length;
  if (declined && !mine.length) box.append(el('p', { class: 'declined' }, t('web.js.rematch.some_declined', { Count: declined })));
  return box;
}
