// azuld web client: the entry module. The server's page embeds
// <main id="app" data-view="table|replay" ...>; this module reads those
// attributes and starts the matching view. Everything the client shows
// comes from the /v1 REST API; no rule is computed here.
import { startTable } from './table.js';
import { startReplay } from './replay.js';
import { t } from './i18n.js';
// The invitation link's copy button.
import './copy.js';

const root = document.getElementById('app');
if (root && root.dataset.game) {
  const start = root.dataset.view === 'replay' ? startReplay : startTable;
  start(root).catch((err) => {
    root.dataset.error = String(err && err.message || err);
    const p = document.createElement('p');
    p.className = 'notice error';
    p.textContent = t('web.js.error.show', { Error: root.dataset.error });
    root.prepend(p);
  });
}
