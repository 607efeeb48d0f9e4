// Copy buttons: <button class="copy" data-copy="ID"> copies the value (or
// text) of the element with that id to the clipboard, and says so in the
// status element next to it. The words come from the page, in the
// reader's language (data-copied, data-failed).
function copyText(id) {
  const src = document.getElementById(id);
  if (!src) return '';
  return 'value' in src ? src.value : src.textContent;
}

async function copy(button) {
  const text = copyText(button.dataset.copy);
  const status = button.parentElement && button.parentElement.querySelector('.copy-status');
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch (_) {
    // Without the clipboard (an insecure origin, a refusal), the text is
    // selected so the reader can copy it by hand.
    const src = document.getElementById(button.dataset.copy);
    if (src && src.select) src.select();
  }
  button.dataset.state = ok ? 'copied' : 'failed';
  if (status) status.textContent = ok ? button.dataset.copied : button.dataset.failed;
}

// Buttons may come and go (the table page redraws): one listener on the
// document serves them all.
document.addEventListener('click', (e) => {
  const button = e.target.closest ? e.target.closest('button.copy[data-copy]') : null;
  if (button) copy(button);
});
