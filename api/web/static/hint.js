// The Hint button of an unrated game's table, on the reader's turn: it
// asks GET /v1/games/{id}/hint for the strongest bot's move and shows it
// with its reasons (the server's words, in the reader's language) and a
// button that plays it. The server refuses hints in rated games; the
// button is not even offered there.
import { api, gamePath, el } from './api.js';
import { t, say, list } from './i18n.js';

// hintPanel is the panel of game g for the legal moves the reader may
// play now (none: no panel). state keeps the last hint across the page's
// redraws ({version, hint}); play(move) plays a legal move.
export function hintPanel(g, moves, state, play) {
  if (g.status !== 'active' || g.rated !== false || !moves.length) return null;
  const box = el('section', { class: 'hint-panel', 'aria-label': t('web.js.suggest.button') });
  const out = el('div', { id: 'hint-result', role: 'status' });
  const show = (h) => {
    const move = moves.find((m) => m.notation === h.notation);
    out.replaceChildren(
      el('p', {}, el('strong', {}, t('web.js.suggest.suggests', { Move: say(h.notation, g.ruleset) }))),
      h.reasons?.length ? el('p', { class: 'hint-reasons' }, t('web.js.suggest.because', { Reasons: list(h.reasons.map((r) => r.text)) })) : '',
      move ? el('button', { type: 'button', id: 'hint-play', class: 'secondary', onclick: () => play(move) }, say(h.notation, g.ruleset)) : '',
    );
  };
  const button = el('button', { type: 'button', id: 'hint', class: 'secondary', onclick: async () => {
    button.disabled = true;
    out.replaceChildren(el('p', { class: 'muted' }, t('web.js.suggest.asking')));
    try {
      const h = await api('GET', gamePath(g.id, '/hint'));
      state.version = g.version;
      state.hint = h;
      show(h);
    } catch (err) {
      out.replaceChildren(el('p', { class: 'form-error', role: 'alert' }, err.message));
    }
    button.disabled = false;
  } }, t('web.js.suggest.button'));
  box.append(button, out);
  if (state.hint && state.version === g.version) show(state.hint);
  return box;
}
