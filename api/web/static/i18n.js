// The page's words: the messages the scripts need, in the reader's
// language, are a static file the page links to (<link id="i18n">, a
// versioned URL the browser keeps for good and preloads while the
// modules arrive): catalogue ids web.js.*, game.colour.*,
// game.ruleset.*, game.term.*, and the move words under _words. Numbers,
// plurals and times follow the reader's language and time zone with Intl.

// loadMessages reads the linked file; without it (or offline) every
// message shows as its [id], which the page's tests would catch.
async function loadMessages() {
  const link = document.getElementById('i18n');
  if (!link?.href) return {};
  try {
    const res = await fetch(link.href, { credentials: 'same-origin' });
    return res.ok ? await res.json() : {};
  } catch {
    return {};
  }
}

const M = await loadMessages();
// lang is the page's language for Intl; apiLang is what API calls ask
// for (the page's own, which may be the test-only pseudo-locale).
export const lang = document.documentElement.lang || 'en';
export const apiLang = document.body?.dataset.lang || lang;
export const zone = document.body?.dataset.zone || 'UTC';
const rules = new Intl.PluralRules(lang);
const numbers = new Intl.NumberFormat(lang);

// num is an integer in the reader's format.
export const num = (n) => numbers.format(n);

// t renders message id with named arguments ({{.Name}}); a plural
// message picks its form by args.Count (CLDR rules, Intl.PluralRules).
// A missing id shows as [id], never as nothing.
export function t(id, args = {}) {
  let m = M[id];
  if (m === undefined) return `[${id}]`;
  if (typeof m === 'object') m = m[rules.select(Number(args.Count) || 0)] ?? m.other;
  return m.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_, k) => {
    const v = args[k];
    return typeof v === 'number' ? num(v) : String(v ?? '');
  });
}

// has reports whether the page has message id.
export const has = (id) => M[id] !== undefined;

// colour is a colour's name in the reader's words.
export const colour = (c) => (M[`game.colour.${c}`] !== undefined ? t(`game.colour.${c}`) : String(c));

// tileOf is one tile of colour c ("red tile", "rote Fliese"); tilesOf
// is n of them ("3 red tiles", "3 rote Fliesen").
export const tileOf = (c) => (M[`web.js.tile_of.${c}`] !== undefined ? t(`web.js.tile_of.${c}`) : String(c));
export const tilesOf = (c, n) => (M[`web.js.tiles_n.${c}`] !== undefined ? t(`web.js.tiles_n.${c}`, { Count: n }) : `${num(n)} ${c}`);

// list joins items with the reader's "and".
export function list(items) {
  if (items.length < 2) return items.join('');
  return t('web.js.list_and', { Init: items.slice(0, -1).join(t('web.js.list_separator')), Last: items[items.length - 1] });
}

// time is a moment in the reader's zone, the zone named, written with
// the reader's conventions (26.11.2026, 00:31 MEZ; 26/11/2026, 00:31 CET).
export function time(iso) {
  try {
    return new Intl.DateTimeFormat(lang, {
      timeZone: zone, day: 'numeric', month: 'numeric', year: 'numeric',
      hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
    }).format(new Date(iso));
  } catch {
    return new Date(iso).toISOString();
  }
}

// say writes a move's language-neutral notation ("F2 red 3") in the
// reader's words ("F2 rot 3"); what is sent to the server stays the
// notation.
export function say(notation, ruleset) {
  const words = (M._words || {})[String(ruleset || '').startsWith('summer-pavilion') ? 'pavilion' : 'azul'] || {};
  return String(notation).split(/\s+/).map((f) => {
    let m = /^s(\d+)$/.exec(f);
    if (m && words.$star) return words.$star + m[1];
    m = /^w(\d+)$/.exec(f);
    if (m && words.$wild) return words.$wild + m[1];
    return words[f] ?? f;
  }).join(' ');
}
