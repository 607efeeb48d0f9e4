// Calls to the /v1 REST API with the page's session cookie. Every request
// that changes something carries the page's CSRF token, and every one
// asks for the page's language, so the server's messages (problem
// details, event descriptions) are in the reader's words.
import { t, apiLang, has } from './i18n.js';

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || '';

// ApiError is a problem+json answer (RFC 9457) or a network failure.
// Its message is in the reader's words: the broken rule's sentence, the
// server's detail when the server wrote it in the reader's language
// (Content-Language), else what the status means.
export class ApiError extends Error {
  constructor(status, problem, lang = '') {
    let msg;
    if (problem?.rule && has(`rule.${problem.rule}`)) msg = t(`rule.${problem.rule}`);
    else if (problem?.detail && (lang || 'en').toLowerCase() === apiLang.toLowerCase()) msg = problem.detail;
    else if (has(`web.error.status.${status}`)) msg = t(`web.error.status.${status}`);
    else msg = status ? t('web.js.error.request', { Status: status }) : problem?.detail || t('web.js.error.unreachable');
    super(msg);
    this.status = status;
    this.problem = problem || {};
  }
}

// api sends a request and returns the decoded JSON body (null when empty).
export async function api(method, path, body, headers = {}) {
  const h = { Accept: 'application/json', 'Accept-Language': apiLang, ...headers };
  const init = { method, headers: h, credentials: 'same-origin' };
  if (method !== 'GET') h['X-CSRF-Token'] = csrf();
  if (body !== undefined) {
    h['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, { detail: t('web.js.error.unreachable') });
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  if (!res.ok) throw new ApiError(res.status, data, res.headers.get('Content-Language') || '');
  if (data && typeof data === 'object') Object.defineProperty(data, 'lang', { value: res.headers.get('Content-Language') || '' });
  return data;
}

// prose reports whether the server's own sentences in an answer (event
// descriptions) are in the reader's language: the answer says which
// language it is written in (Content-Language); one that says nothing is
// English.
export function prose(data) {
  const said = (data && data.lang) || 'en';
  return said.toLowerCase() === apiLang.toLowerCase();
}

// gamePath is the API path of a game, plus a suffix.
export const gamePath = (id, suffix = '') => `/v1/games/${encodeURIComponent(id)}${suffix}`;

// allEvents reads a game's whole audit log, page by page.
export async function allEvents(id) {
  const out = [];
  let after = 0;
  for (;;) {
    const page = await api('GET', gamePath(id, `/events?after=${after}&limit=1000`));
    // A description the reader could not read is left out.
    out.push(...page.events.map((e) => (prose(page) ? e : { ...e, description: '' })));
    if (!page.next || page.events.length === 0) return out;
    after = page.events[page.events.length - 1].version;
  }
}

// el creates an HTML element: el('p', {class: 'x'}, 'text', child...).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// seatName is how a seat is called on the page.
export function seatName(game, seat) {
  const s = (game.seats || [])[seat];
  if (!s) return t('web.js.seat', { N: seat + 1 });
  if (s.name) return s.name;
  if (s.bot) return t('web.js.bot', { Bot: botName(s.bot) });
  return t('web.js.seat_open', { N: seat + 1 });
}

// profilePath is the address of a seat's profile page: a player's or a
// bot kind's; '' for a free seat or an erased player, who has none (the
// server names them "former player", projections.FormerPlayer).
export function profilePath(game, seat) {
  const s = (game.seats || [])[seat];
  if (!s) return '';
  if (s.bot) return `/players/bot:${encodeURIComponent(s.bot)}`;
  if (s.player_id && s.name && s.name !== 'former player') return `/players/${encodeURIComponent(s.player_id)}`;
  return '';
}

// botName is a bot kind in the reader's words.
export function botName(kind) {
  const known = ['random', 'greedy', 'search', 'level1', 'level2', 'level3', 'level4', 'level5', 'level6'];
  return known.includes(kind) ? t(`web.js.bot_kind.${kind}`) : String(kind);
}
