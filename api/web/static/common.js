// Pieces the table and the replay share.
import { el, seatName, botName } from './api.js';
import { t, num, colour } from './i18n.js';

export function rulesetName(g) {
  const id = `game.ruleset.${g.ruleset}`;
  let name = g.ruleset ? t(id) : t('web.js.game');
  if (name === `[${id}]`) name = g.ruleset;
  const o = g.options || {};
  if (o.wall === 'grey') name = t('web.js.with_grey_wall', { Name: name });
  if (o.board === 'monochrome') name = t('web.js.with_monochrome', { Name: name });
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
  const known = ['rounds_played', 'round_limit', 'row_completed', 'no_tiles', 'resigned'];
  return t(`web.js.reason.${known.includes(reason) ? reason : 'unknown'}`);
}

// itemText is one line of a final breakdown in words, as the game-over
// mail writes it: "2 complete rows +4".
function itemText(b) {
  const Points = `${b.points > 0 ? '+' : b.points < 0 ? '−' : ''}${num(Math.abs(b.points))}`;
  const plural = { rows: 'rows', columns: 'columns', colours: 'colours', colors: 'colours', kept_tiles: 'kept_tiles' }[b.item];
  if (plural) return t(`web.js.final.${plural}`, { Count: b.count, Points });
  let m = /^star_(\d+)_([a-z]+)$/.exec(b.item);
  if (m) return m[1] === '0' || m[2] === 'multicoloured' ? t('web.js.final.centre_star', { Points }) : t('web.js.final.star', { Colour: colour(m[2]), Points });
  m = /^all_(\d)s$/.exec(b.item);
  if (m) return t('web.js.final.all', { N: m[1], Points });
  return t('web.js.final.misc', { Points });
}

// describeFinal is the final result table.
export function describeFinal(g) {
  const f = g.final;
  const rows = [...f.players].sort((a, b) => a.rank - b.rank);
  const tbl = el('table', { class: 'final' },
    el('caption', {}, f.reason ? t('web.js.final.caption_reason', { Reason: reasonText(f.reason) }) : t('web.js.final.caption')),
    el('thead', {}, el('tr', {}, el('th', {}, t('web.js.final.rank')), el('th', {}, t('web.js.final.player')), el('th', {}, t('web.js.final.score')), el('th', {}, t('web.js.final.details')))));
  const body = el('tbody', {});
  for (const p of rows) {
    const details = (p.breakdown || []).filter((b) => b.item !== 'play' && b.points).map(itemText).join(t('web.js.list_separator'));
    body.append(el('tr', { class: p.rank === 1 ? 'winner' : '' }, el('td', {}, num(p.rank)), el('td', {}, p.resigned ? t('web.js.final.resigned', { Name: seatName(g, p.seat) }) : seatName(g, p.seat)),
      el('td', {}, num(p.score)), el('td', {}, details)));
  }
  tbl.append(body);
  return tbl;
}

// actorText says who caused an event.
export function actorText(g, meta) {
  const a = (meta && meta.actor) || {};
  if (a.seat !== undefined && a.seat !== null) return seatName(g, a.seat);
  if (a.kind === 'bot') return t('web.js.bot', { Bot: botName(a.bot || '') });
  return a.kind === 'player' ? t('web.js.actor.player') : t('web.js.actor.server');
}

// markWild marks the tiles of the round's wild colour (Summer Pavilion)
// in the drawing and in their text alternative.
export function markWild(root, g) {
  if (!g.wild) return;
  for (const e of root.querySelectorAll(`.tile.t-${g.wild}`)) {
    e.classList.add('is-wild');
    const label = e.getAttribute('aria-label');
    if (label && !e.dataset.wildLabel) {
      const marked = t('web.js.wild_this_round', { Label: label });
      e.dataset.wildLabel = 'yes';
      e.setAttribute('aria-label', marked);
      const title = e.querySelector('title');
      if (title) title.textContent = marked;
    }
  }
}

