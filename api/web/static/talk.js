// Table talk: the messages between a game's players. The server draws
// the panel (it works without script: its forms post to /games/{id}/...);
// with script the forms post to the API without a reload, and the list
// follows the game's stream. The replay lists the messages written up to
// the version it shows.
import { api, gamePath, el } from './api.js';
import { t, time } from './i18n.js';

// messageProblem is why the server would refuse a message (as
// play.CleanMessage does), in the reader's words; '' when it would take
// it. Checked before sending, so the reader learns it by the box.
export function messageProblem(text, max) {
  const clean = text.replace(/\r\n?/g, '\n').trim();
  const n = [...clean].length;
  if (!n) return t('talk.web.error.talk_text_empty');
  if (n > max) return t('talk.web.error.talk_text_long', { Count: n, Max: max });
  // Control characters but the newline, and the bidirectional overrides.
  if (/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u.test(clean)) return t('talk.web.error.talk_text_control');
  return '';
}

// characters counts a message as the server does: trimmed, by code
// point.
const characters = (text) => [...text.replace(/\r\n?/g, '\n').trim()].length;

// authorOf is a message's author in the reader's words.
const authorOf = (m) => (m.erased ? t('talk.former_player') : m.author);

// readMessages reads a game's messages (an empty list when the reader
// may not read them, or on any failure: the talk is a side of the game).
export async function readMessages(id) {
  try {
    return await api('GET', gamePath(id, '/messages'));
  } catch {
    return { messages: [], muted: false };
  }
}

// messageItem is one message as the panel lists it; report, when given,
// offers the reader to report it.
function messageItem(m, me, report) {
  const li = el('li', { class: `talk-message${m.player_id === me ? ' mine' : ''}`, 'data-version': m.version },
    el('span', { class: 'talk-author' }, authorOf(m)), ' ',
    el('span', { class: 'talk-text' }, m.text), ' ',
    el('span', { class: 'talk-when muted' }, `${t('talk.web.place', { Version: m.version })} · `, el('time', { datetime: m.at }, time(m.at))));
  if (report && m.player_id !== me) li.append(report(m));
  return li;
}

// enhanceTalk takes over the server's panel (section#talk) of a table:
// the forms post through the API, and refresh() redraws the list, marking
// other players' messages after version as new; refusals and notices
// are said in the panel. Returns null when the page has no panel.
export function enhanceTalk(section, id, me, version) {
  if (!section) return null;
  const canWrite = section.dataset.canWrite === 'true';
  const p = { section, id, me, seen: 0, muted: section.dataset.muted === 'true' };
  const heading = section.querySelector('h2');
  const badge = el('span', { class: 'talk-new chip', hidden: true });
  heading.append(' ', badge);
  // What becomes of a report or a mute is said in the panel, in view of
  // the reader who clicked, not at the top of the page.
  const status = el('p', { class: 'talk-status notice', role: 'status', hidden: true });
  (section.querySelector('form.talk-mute') || section.lastElementChild).after(status);
  const tell = (text, kind = '') => {
    status.hidden = !text;
    status.className = `talk-status notice ${kind}`;
    status.textContent = text || '';
  };
  // The reader has seen what is listed once they look at the panel.
  const seen = () => { p.unread = 0; badge.hidden = true; };
  section.addEventListener('focusin', seen);
  section.addEventListener('click', seen);

  const report = (m) => {
    const input = el('input', { type: 'text', name: 'reason', maxlength: 500 });
    const d = el('details', { class: 'talk-report' }, el('summary', {}, t('talk.web.report')));
    const b = el('button', { type: 'button', class: 'secondary' }, t('talk.web.report_send'));
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        await api('POST', gamePath(id, `/messages/${m.version}/report`), { reason: input.value });
        d.open = false;
        tell(t('talk.web.reported'), 'ok');
      } catch (err) {
        tell(err.message, 'error');
      }
      b.disabled = false;
    });
    d.append(el('label', {}, `${t('talk.web.report_reason')} `, input), ' ', b);
    return d;
  };

  p.refresh = async () => {
    const page = await readMessages(id);
    const msgs = page.messages || [];
    let ol = section.querySelector('ol.talk-messages');
    const empty = section.querySelector('.talk-empty');
    if (msgs.length) {
      if (!ol) {
        ol = el('ol', { class: 'talk-messages' });
        (empty || section.querySelector('.talk-form') || null)?.before(ol);
        if (!ol.isConnected) section.append(ol);
      }
      ol.replaceChildren(...msgs.map((m) => messageItem(m, me, canWrite ? report : null)));
      if (empty) empty.remove();
    }
    const last = msgs.length ? msgs[msgs.length - 1].version : 0;
    // Other players' new messages mark the panel, unless muted.
    const fresh = msgs.filter((m) => m.version > p.seen && m.player_id !== me).length;
    if (fresh && !p.muted) {
      p.unread = (p.unread || 0) + fresh;
      badge.textContent = t('talk.web.new', { Count: p.unread });
      badge.hidden = false;
    }
    p.seen = Math.max(p.seen, last);
  };
  // What the server drew (the game at version) counts as seen.
  p.seen = Number(version) || 0;
  // The server's report forms give way to the script's.
  if (canWrite) {
    for (const li of section.querySelectorAll('li.talk-message')) {
      const old = li.querySelector('details.talk-report');
      if (old) old.replaceWith(report({ version: Number(li.dataset.version) }));
    }
  }

  const form = section.querySelector('form.talk-form');
  if (form) {
    const area = form.querySelector('textarea');
    const button = form.querySelector('button[type=submit]');
    const key = form.querySelector('input[name=key]');
    const counter = form.querySelector('#talk-count');
    const error = form.querySelector('#talk-error');
    const max = Number(area.dataset.max) || 500;
    // The reason a message was not sent stands by the box, where the
    // reader is looking, and goes when they change the text.
    const refuse = (text) => {
      error.textContent = text || '';
      error.hidden = !text;
      if (text) area.setAttribute('aria-invalid', 'true');
      else area.removeAttribute('aria-invalid');
      area.setAttribute('aria-describedby', text ? 'talk-count talk-error' : 'talk-count');
    };
    p.refuse = refuse;
    // The counter follows the text as it is typed or pasted; over the
    // limit it is marked, and the message is not sent.
    const count = () => {
      const n = characters(area.value);
      counter.textContent = t('talk.web.count', { Count: n, Max: max });
      counter.classList.toggle('over', n > max);
      if (!error.hidden && n <= max && area.getAttribute('aria-invalid')) refuse('');
    };
    area.addEventListener('input', count);
    count();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const problem = messageProblem(area.value, max);
      if (problem) {
        refuse(problem);
        area.focus();
        return;
      }
      refuse('');
      button.disabled = true;
      try {
        await api('POST', gamePath(id, '/messages'), { text: area.value }, key ? { 'Idempotency-Key': key.value } : {});
        area.value = '';
        count();
        if (key) key.value = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
        await p.refresh();
      } catch (err) {
        refuse(err.message);
      }
      button.disabled = false;
    });
  }
  const mute = section.querySelector('form.talk-mute');
  if (mute) {
    const draw = () => {
      mute.replaceChildren(p.muted ? el('span', { class: 'muted' }, `${t('talk.web.muted')} `) : '',
        el('button', { type: 'submit', class: 'secondary', id: 'talk-mute' }, p.muted ? t('talk.web.unmute') : t('talk.web.mute')));
      section.dataset.muted = String(p.muted);
    };
    draw();
    mute.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api('PUT', gamePath(id, '/messages/mute'), { muted: !p.muted });
        p.muted = !p.muted;
        if (p.muted) { p.unread = 0; badge.hidden = true; }
        draw();
        tell('');
      } catch (err) {
        tell(err.message, 'error');
      }
    });
  }
  return p;
}

// replayTalk draws the messages written up to version v into box (the
// replay's side panel); the one written at v is marked.
export function replayTalk(box, msgs, v) {
  const upTo = msgs.filter((m) => m.version <= v);
  box.replaceChildren(el('h3', {}, t('talk.web.heading')));
  if (!upTo.length) {
    box.append(el('p', { class: 'muted' }, t('talk.web.replay_none')));
    return;
  }
  const ol = el('ol', { class: 'talk-messages' });
  for (const m of upTo) {
    const li = messageItem(m, '', null);
    if (m.version === v) li.classList.add('current');
    ol.append(li);
  }
  box.append(ol);
}
