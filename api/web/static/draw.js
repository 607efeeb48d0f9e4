// SVG drawings of the table from the state JSON (docs/architecture.md §5.4). Every
// drawn piece of state carries data-path (the JSON path the server's diff
// uses, e.g. players[0].board.wall[1][3]) and data-val (the value drawn),
// so changes can be marked and tests can check the drawing against the
// state. Colours are told apart by a letter too, and every tile has a
// text alternative.

import { t, colour, tileOf, tilesOf, lang } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';

export const LETTERS = {
  blue: 'B', yellow: 'Y', red: 'R', black: 'K', white: 'W',
  purple: 'P', green: 'G', orange: 'O', marker: '1',
};
// lettersOf tells a family's colours apart by a letter in the reader's
// language too: the first of each colour's name, or its first two where
// two names of the family share one (Summer Pavilion in German: gelb and
// grün, Ge and Gr). English keeps LETTERS.
function lettersOf(family) {
  if (lang === 'en') return LETTERS;
  const names = Object.fromEntries(family.map((c) => [c, colour(c).toLocaleUpperCase(lang)]));
  const out = { marker: '1' };
  for (const [c, name] of Object.entries(names)) {
    const first = [...name][0];
    const shared = Object.entries(names).some(([o, n]) => o !== c && [...n][0] === first);
    out[c] = shared ? first + [...name][1].toLocaleLowerCase(lang) : first;
  }
  return out;
}
// letters are the letters of the game drawn last (a page shows one game).
let letters = LETTERS;
function setFamily(v) {
  letters = isPavilion(v) ? lettersOf(PAV_ORDER) : lettersOf(AZUL_ORDER);
}
const AZUL_ORDER = ['blue', 'yellow', 'red', 'black', 'white'];
const PAV_ORDER = ['purple', 'green', 'orange', 'yellow', 'blue', 'red'];
// Outer stars 1..6 clockwise (docs/rules.md §3.3); star 0 is the centre.
const STAR_NAMES = ['centre', 'purple', 'orange', 'red', 'blue', 'yellow', 'green'];

// starName names a star as the player sees it (the monochrome side's
// outer stars have no colour: they go by their number).
export function starName(v, seat, st) {
  const b = v.players[seat].board;
  if (st === 0) return t('web.js.star.centre');
  return b.star_colours[st] ? t('web.js.star.coloured', { Colour: colour(b.star_colours[st]) }) : t('web.js.star.numbered', { N: st });
}

// starLabel names star st by its place on the board (the colour of the
// coloured side's star there).
const starLabel = (st) => (st === 0 ? t('web.js.star.centre') : t('web.js.star.coloured', { Colour: colour(STAR_NAMES[st]) }));
const FLOOR_PENALTY = [1, 1, 2, 2, 2, 3, 3];

export const isPavilion = (v) => (v.ruleset || '').startsWith('summer-pavilion');

// s creates an SVG element.
export function s(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// svg is a drawing w×h units wide; fixed ones are drawn at that size in
// CSS pixels, the others scale with the page.
function svg(w, h, label, x0 = 0, y0 = 0, fixed = false) {
  return s('svg', { viewBox: `${x0} ${y0} ${w} ${h}`, role: 'group', 'aria-label': label, class: 'drawing',
    width: fixed ? w : null, height: fixed ? h : null });
}

// ordered lists a map's colours in the game's order.
export function ordered(map, pav) {
  const order = pav ? PAV_ORDER : AZUL_ORDER;
  return Object.keys(map || {}).filter((c) => map[c] > 0)
    .sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

// tile draws one tile of colour c centred on (x, y), side size.
export function tile(c, x, y, size, label) {
  const h = size / 2;
  const name = label || (c === 'marker' ? t('web.js.start_marker') : tileOf(c));
  return s('g', { class: `tile t-${c}`, role: 'img', 'aria-label': name },
    s('title', {}, name),
    s('rect', { x: x - h, y: y - h, width: size, height: size, rx: size * 0.16 }),
    s('text', { x, y: y + size * 0.12, 'font-size': size * 0.42, 'aria-hidden': 'true' }, letters[c] || '?'));
}

// startTile is the start player tile beside the name of the player who
// holds it: the tile drawn as on the table, named by the game's term
// for it.
export function startTile() {
  const name = t('game.term.start_marker');
  const drawn = tile('marker', 13, 13, 24, name);
  // The drawing is named once, as a whole.
  drawn.setAttribute('aria-hidden', 'true');
  drawn.removeAttribute('role');
  return s('svg', { viewBox: '0 0 26 26', width: 26, height: 26, class: 'drawing start-tile', role: 'img', 'aria-label': name },
    s('title', {}, t('web.js.holds_marker')), drawn);
}

// countBadge is the "×n" beside a tile group.
function badge(n, x, y) {
  return s('g', { class: 'badge', 'aria-hidden': 'true' },
    s('circle', { cx: x, cy: y, r: 9 }), s('text', { x, y: y + 3.5 }, n));
}

// hitArea is an invisible rectangle that catches the clicks a group's
// tiles would miss: the gaps between them belong to the group too.
function hitArea(x, y, w, h) {
  return s('path', { class: 'hit', d: `M${x},${y}h${w}v${h}h${-w}z` });
}

// group draws a source's tiles of one colour as a pick target; hits are
// its hit areas, drawn under the tiles.
function group(path, c, n, src, draw, hits = []) {
  const g = s('g', { class: 'grp', 'data-path': `${path}.${c}`, 'data-val': n, 'data-src': src, 'data-color': c });
  g.append(...hits, ...[draw].flat());
  return g;
}

// drawOffer draws the factories, the centre and (Pavilion) the supply.
export function drawOffer(v) {
  setFamily(v);
  const pav = isPavilion(v);
  const wrap = document.createElement('div');
  wrap.className = 'offer';
  const F = 96; // factory cell
  const nf = v.factories.length;
  const perRow = nf <= 5 ? nf : Math.ceil(nf / 2);
  const rows = Math.ceil(nf / perRow) || 1;
  const fs = svg(perRow * F, rows * F, t('web.js.factories'));
  fs.classList.add('factories');
  v.factories.forEach((f, i) => {
    const cx = (i % perRow) * F + F / 2, cy = Math.floor(i / perRow) * F + F / 2;
    const g = s('g', { class: 'factory', 'data-path': `factories[${i}]`, 'aria-label': t('web.js.factory', { N: i + 1 }) },
      s('circle', { cx, cy, r: F / 2 - 4, class: 'disc' }),
      s('text', { x: cx, y: cy + F / 2 - 8, class: 'label' }, `F${i + 1}`));
    // Tile k sits in quarter k of the disc (two rows of two); the
    // quarters meet, so a click anywhere on the disc takes a colour.
    const half = F / 2 - 4, midY = cy - 4;
    let k = 0;
    for (const c of ordered(f, pav)) {
      const tiles = [], hits = [];
      for (let j = 0; j < f[c]; j++, k++) {
        const tx = cx + (k % 2 ? 16 : -16), ty = cy + (k < 2 ? -16 : 16) - 4;
        tiles.push(tile(c, tx, ty, 28, t('web.js.tile_in_factory', { Tile: tileOf(c), N: i + 1 })));
        hits.push(hitArea(k % 2 ? cx : cx - half, k < 2 ? midY - half : midY, half, half));
      }
      g.append(group(`factories[${i}]`, c, f[c], String(i), tiles, hits));
    }
    fs.append(g);
  });
  wrap.append(fs);

  const centre = pool('center.tiles', v.center.tiles, pav, 'center', 'centre', v.center.marker);
  wrap.append(centre);
  if (pav) wrap.append(pool('supply', v.supply || {}, pav, 'supply', 'supply', false));
  return wrap;
}

// pool draws a heap of tiles (the centre, the supply) as one tile per
// colour with its count; what is "centre" or "supply".
function pool(path, map, pav, src, what, marker) {
  const name = t(`web.js.pool.${what}`);
  const cols = ordered(map, pav);
  const W = 44;
  const n = cols.length + (marker ? 1 : 0);
  const width = Math.max(3, n) * W + 12;
  const p = svg(width, 76, name, 0, 0, true);
  p.classList.add('pool', `pool-${src}`);
  p.append(s('rect', { x: 2, y: 2, width: width - 4, height: 72, rx: 14, class: 'tray' }),
    s('text', { x: 12, y: 17, class: 'label start' }, name));
  let x = 6 + W / 2;
  if (marker) {
    const m = s('g', { 'data-path': 'center.marker', 'data-val': 'true' });
    m.append(tile('marker', x, 44, 30, t('web.js.start_marker')));
    p.append(m);
    x += W;
  }
  for (const c of cols) {
    p.append(group(path, c, map[c], src, [tile(c, x, 44, 30, t(`web.js.tiles_in.${what}`, { Tiles: tilesOf(c, map[c]) })), badge(map[c], x + 15, 30)],
      [hitArea(x - W / 2, 20, W, 52)]));
    x += W;
  }
  if (n === 0) p.append(s('text', { x: width / 2, y: 48, class: 'empty' }, t('web.js.empty')));
  return p;
}

// drawBoard draws one seat's board.
export function drawBoard(v, seat) {
  setFamily(v);
  return isPavilion(v) ? starBoard(v, seat) : azulBoard(v, seat);
}

function azulBoard(v, seat) {
  const p = v.players[seat];
  const b = p.board;
  const grey = v.options && v.options.wall === 'grey';
  const C = 30, G = 4, P = `players[${seat}].board`;
  const g = svg(360, 248, t('web.js.board_of', { N: seat + 1 }));
  g.classList.add('board', 'azul');
  const lineRight = 166, wallX = 188;
  for (let r = 0; r < 5; r++) {
    const y = 8 + r * (C + G);
    const line = b.lines[r] || { color: null, count: 0 };
    const lg = s('g', { class: 'line', 'data-line': r + 1, 'data-path': `${P}.lines[${r}].count`, 'data-val': line.count || 0,
      'aria-label': line.count ? t('web.js.pattern_line', { N: r + 1, Tiles: tilesOf(line.color, line.count) }) : t('web.js.pattern_line_empty', { N: r + 1 }) });
    lg.append(s('rect', { x: lineRight - (r + 1) * (C + G) - 3, y: y - 3, width: (r + 1) * (C + G) + 2, height: C + 6, rx: 6, class: 'slot-bg' }));
    for (let k = 0; k <= r; k++) {
      const x = lineRight - (k + 1) * (C + G) + G / 2;
      if (k < line.count) lg.append(tile(line.color, x + C / 2, y + C / 2, C, t('web.js.tile_on_line', { Tile: tileOf(line.color), N: r + 1 })));
      else lg.append(s('rect', { x, y, width: C, height: C, rx: 5, class: 'space' }));
    }
    g.append(lg);
    for (let c = 0; c < 5; c++) {
      const x = wallX + c * (C + G), cell = b.wall[r][c];
      const expected = AZUL_ORDER[(c - r + 5) % 5];
      const w = s('g', { class: 'cell', 'data-cell': `${r + 1},${c + 1}`, 'data-path': `${P}.wall[${r}][${c}]`, 'data-val': cell || '' });
      if (cell) w.append(tile(cell, x + C / 2, y + C / 2, C, t('web.js.tile_on_wall', { Tile: tileOf(cell), Row: r + 1, Column: c + 1 })));
      else if (grey) w.append(s('rect', { x, y, width: C, height: C, rx: 5, class: 'space grey' }, s('title', {}, t('web.js.wall_space', { Row: r + 1, Column: c + 1 }))));
      else {
        w.append(s('g', { class: `ghost t-${expected}`, role: 'img', 'aria-label': t('web.js.wall_space_colour', { Colour: colour(expected), Row: r + 1 }) },
          s('title', {}, t('web.js.wall_space_colour', { Colour: colour(expected), Row: r + 1 })),
          s('rect', { x, y, width: C, height: C, rx: 5 }),
          s('text', { x: x + C / 2, y: y + C / 2 + 4, 'font-size': 12 }, letters[expected])));
      }
      g.append(w);
    }
  }
  const fy = 186;
  const floor = s('g', { class: 'line floor', 'data-line': 'floor', 'data-path': `${P}.floor`, 'data-val': b.floor.join(','),
    'aria-label': b.floor.length ? t('web.js.floor', { Tiles: b.floor.map((c) => (c === 'marker' ? t('web.js.start_marker') : colour(c))).join(t('web.js.list_separator')) }) : t('web.js.floor_empty') });
  floor.append(s('rect', { x: 4, y: fy - 3, width: 7 * (C + G) + 4, height: C + 22, rx: 6, class: 'slot-bg' }));
  for (let i = 0; i < 7; i++) {
    const x = 8 + i * (C + G);
    floor.append(s('text', { x: x + C / 2, y: fy + C + 14, class: 'penalty' }, `−${FLOOR_PENALTY[i]}`));
    if (i < b.floor.length) floor.append(tile(b.floor[i], x + C / 2, fy + C / 2, C, b.floor[i] === 'marker' ? t('web.js.marker_on_floor') : t('web.js.tile_on_floor', { Tile: tileOf(b.floor[i]) })));
    else floor.append(s('rect', { x, y: fy, width: C, height: C, rx: 5, class: 'space' }));
  }
  g.append(floor);
  return g;
}

// Star geometry (docs/rules.md §3.3): outer star s (1..6) sits at angle
// -90° + (s-1)·60°, clockwise from the top; its space i points at
// φ + 150° + (i-2)·60°, so spaces 2 and 3 face the centre, 5 and 6 face
// out (the window) and 1, 2 face the next star's 3, 4 (a statue).
// Centre space j points at (j-1)·60°, so centre spaces s-2 and s-1 face
// outer star s (its pillar).
const A = 21, R = 3.45 * A;
const rad = (d) => (d * Math.PI) / 180;
const at = (x, y, deg, r) => [x + r * Math.cos(rad(deg)), y + r * Math.sin(rad(deg))];
const starCentre = (st) => (st === 0 ? [0, 0] : at(0, 0, -90 + (st - 1) * 60, R));
const spaceAngle = (st, i) => (st === 0 ? (i - 1) * 60 : -90 + (st - 1) * 60 + 150 + (i - 2) * 60);

function diamond(cx, cy, deg) {
  const pts = [[cx, cy], at(cx, cy, deg - 30, A), at(cx, cy, deg, A * Math.sqrt(3)), at(cx, cy, deg + 30, A)];
  return pts.map((p) => p.map((n) => n.toFixed(1)).join(',')).join(' ');
}

// features lists the windows, statues and pillars with the spaces around
// each ([star, space] pairs).
function features() {
  const out = [];
  for (let st = 1; st <= 6; st++) {
    const nx = st === 6 ? 1 : st + 1;
    const cyc = (n) => ((n - 1 + 6) % 6) + 1;
    out.push({ kind: 'window', st, around: [[st, 5], [st, 6]], bonus: 3,
      pos: at(...starCentre(st), -90 + (st - 1) * 60, A * 2.25), name: t('web.js.feature.window', { Star: starLabel(st) }) });
    const [ax, ay] = starCentre(st), [bx, by] = starCentre(nx);
    out.push({ kind: 'statue', st, around: [[st, 1], [st, 2], [nx, 3], [nx, 4]], bonus: 2,
      pos: at((ax + bx) / 2, (ay + by) / 2, -90 + (st - 1) * 60 + 30, A * 0.55), name: t('web.js.feature.statue', { A: starLabel(st), B: starLabel(nx) }) });
    out.push({ kind: 'pillar', st, around: [[st, 2], [st, 3], [0, cyc(st - 2)], [0, cyc(st - 1)]], bonus: 1,
      pos: at(0, 0, -90 + (st - 1) * 60, R / 2), name: t('web.js.feature.pillar', { Star: starLabel(st) }) });
  }
  return out;
}

function starBoard(v, seat) {
  const p = v.players[seat];
  const b = p.board;
  const P = `players[${seat}].board`;
  const E = R + A * 2.9;
  const g = svg(2 * E, 2 * E, t('web.js.star_board_of', { N: seat + 1 }), -E, -E);
  g.classList.add('board', 'pavilion');
  for (let st = 0; st < 7; st++) {
    const [cx, cy] = starCentre(st);
    const starColour = b.star_colours[st];
    const sg = s('g', { class: `star ${starColour ? 's-' + starColour : 's-none'}`, 'aria-label': starLabel(st) });
    for (let i = 1; i <= 6; i++) {
      const deg = spaceAngle(st, i);
      const c = b.stars[st][i - 1];
      const cost = b.costs[st][i - 1];
      const sp = s('g', { class: 'space-d', 'data-space': `${st},${i}`, 'data-path': `${P}.stars[${st}][${i - 1}]`, 'data-val': c || '' });
      const [tx, ty] = at(cx, cy, deg, A * 0.95);
      const label = c ? t('web.js.tile_on_star', { Tile: tileOf(c), Star: starLabel(st), N: i }) : t('web.js.star_space', { N: i, Star: starLabel(st), Cost: cost });
      sp.append(s('polygon', { points: diamond(cx, cy, deg), class: c ? `filled t-${c}` : 'empty' }, s('title', {}, label)));
      sp.append(s('text', { x: tx.toFixed(1), y: (ty + 4.5).toFixed(1), class: c ? 'd-letter' : 'd-cost', 'aria-hidden': 'true' }, c ? letters[c] : cost));
      sg.append(sp);
    }
    g.append(sg);
  }
  const covered = (st, i) => !!b.stars[st][i - 1];
  for (const f of features()) {
    const done = f.around.every(([st, i]) => covered(st, i));
    const [x, y] = f.pos;
    const label = done ? t('web.js.feature.claimed', { Name: f.name }) : t('web.js.feature.bonus', { Name: f.name, Count: f.bonus });
    const shape = f.kind === 'pillar' ? s('circle', { cx: x, cy: y, r: 6 })
      : f.kind === 'statue' ? s('rect', { x: x - 6, y: y - 6, width: 12, height: 12, rx: 2, transform: `rotate(45 ${x} ${y})` })
        : s('path', { d: `M${x - 7},${y + 6} v-7 a7,7 0 0 1 14,0 v7 z` });
    g.append(s('g', { class: `feature ${f.kind}${done ? ' claimed' : ''}`, role: 'img', 'aria-label': label }, s('title', {}, label), shape));
  }
  return g;
}

// tileRow draws a small row of tiles for a colour→count map; what is
// "hand" or "kept".
export function tileRow(map, pav, path, what) {
  const cols = ordered(map || {}, pav);
  const W = 42;
  const width = Math.max(1, cols.length) * W + 4;
  const r = svg(width, 34, t(`web.js.row.${what}`), 0, 0, true);
  r.classList.add('tilerow');
  if (!cols.length) r.append(s('text', { x: 4, y: 21, class: 'empty start' }, '—'));
  cols.forEach((c, i) => {
    const gg = s('g', { 'data-path': `${path}.${c}`, 'data-val': map[c] });
    gg.append(tile(c, W / 2 - 4 + i * W, 17, 26, t(`web.js.tiles.${what}`, { Tiles: tilesOf(c, map[c]) })));
    if (map[c] > 1) gg.append(badge(map[c], W / 2 + 12 + i * W, 8));
    r.append(gg);
  });
  return r;
}
