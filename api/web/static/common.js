// Pieces the table and the replay share.
import { el, seatName } from './api.js';

const RULESETS = {
  'azul-mini': 'Azul Mini',
  'summer-pavilion': 'Summer Pavilion',
  'summer-pavilion-mini': 'Summer Pavilion Mini',
};

export function rulesetName(g) {
  let name = RULESETS[g.ruleset] || g.ruleset || 'Game';
  const o = g.options || {};
  if (o.wall === 'grey') name += ' (grey wall)';
  if (o.board === 'monochrome') name += ' (monochrome)';
  return name;
}

// related reports whether a drawn piece at path q shows the state leaf
// (or subtree) at path p.
function related(p, q) {
  const under = (a, b) => a === b || a.startsWith(b + '.') || a.startsWith(b + '[');
  return under(p, q) || under(q, p);
}

// markChanges marks the drawn pieces the server's diff names; with
// keep false the marks fade after a moment.
export function markChanges(root, changes, keep = false) {
  root.querySelectorAll('.changed').forEach((e) => e.classList.remove('changed'));
  const drawn = [...root.querySelectorAll('[data-path]')];
  let n = 0;
  for (const c of changes || []) {
    for (const e of drawn) {
      if (related(c.path, e.dataset.path) && !e.classList.contains('changed')) {
        e.classList.add('changed');
        n++;
      }
    }
  }
  root.dataset.changed = n;
  if (!keep) setTimeout(() => root.querySelectorAll('.changed').forEach((e) => e.classList.remove('changed')), 2500);
}

// reasonText says why a game ended, in the words of the game-over mail.
function reasonText(reason) {
  return {
    rounds_played: 'after the last round', round_limit: 'after the last round',
    row_completed: 'a row of a wall was completed', no_tiles: 'the tiles ran out', resigned: 'a player resigned',
  }[reason] || String(reason).replaceAll('_', ' ');
}

// itemText is one line of a final breakdown in words, as the game-over
// mail writes it (mail/compose): "2 complete rows +4".
function itemText(b) {
  const pts = `${b.points > 0 ? '+' : ''}${b.points}`;
  const words = {
    rows: ['complete row', 'complete rows'], columns: ['complete column', 'complete columns'],
    colours: ['colour placed five times', 'colours placed five times'], colors: ['colour placed five times', 'colours placed five times'],
    kept_tiles: ['tile left over', 'tiles left over'],
  }[b.item];
  if (words) return `${b.count} ${words[b.count === 1 ? 0 : 1]} ${pts}`;
  let m = /^star_(\d+)_([a-z]+)$/.exec(b.item);
  if (m) return `${m[1] === '0' || m[2] === 'multicoloured' ? 'centre' : m[2]} star complete ${pts}`;
  m = /^all_(\d)s$/.exec(b.item);
  if (m) return `every space ${m[1]} covered on all stars ${pts}`;
  return `${String(b.item).replaceAll('_', ' ')} ${pts}`;
}

// describeFinal is the final result table.
export function describeFinal(g) {
  const f = g.final;
  const rows = [...f.players].sort((a, b) => a.rank - b.rank);
  const t = el('table', { class: 'final' },
    el('caption', {}, `Final result${f.reason ? ` (${reasonText(f.reason)})` : ''}`),
    el('thead', {}, el('tr', {}, el('th', {}, 'Rank'), el('th', {}, 'Player'), el('th', {}, 'Score'), el('th', {}, 'Details'))));
  const body = el('tbody', {});
  for (const p of rows) {
    const details = (p.breakdown || []).filter((b) => b.item !== 'play' && b.points).map(itemText).join(', ');
    body.append(el('tr', { class: p.rank === 1 ? 'winner' : '' }, el('td', {}, p.rank), el('td', {}, seatName(g, p.seat), p.resigned ? ' (resigned)' : ''),
      el('td', {}, p.score), el('td', {}, details)));
  }
  t.append(body);
  return t;
}

// actorText says who caused an event.
export function actorText(g, meta) {
  const a = (meta && meta.actor) || {};
  if (a.seat !== undefined && a.seat !== null) return seatName(g, a.seat);
  if (a.kind === 'bot') return `${a.bot || ''} bot`.trim();
  return a.kind || 'server';
}

// markWild marks the tiles of the round's wild colour (Summer Pavilion)
// in the drawing and in their text alternative.
export function markWild(root, g) {
  if (!g.wild) return;
  for (const e of root.querySelectorAll(`.tile.t-${g.wild}`)) {
    e.classList.add('is-wild');
    const label = e.getAttribute('aria-label');
    if (label && !label.includes('wild')) {
      e.setAttribute('aria-label', `${label} (wild this round)`);
      const title = e.querySelector('title');
      if (title) title.textContent = `${label} (wild this round)`;
    }
  }
}

// plural writes a count with its noun: "1 move", "2 moves".
export function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
