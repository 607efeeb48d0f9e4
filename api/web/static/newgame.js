// The new-game form's bot choices name each bot's rating in the rule set
// and number of seats chosen. The server draws them for the choice the
// page was drawn with; this keeps them in step when either changes. Each
// option with ratings carries them all in data-labels, by
// "ruleset/seats", and its bare name in data-title.
const ruleset = document.getElementById('ruleset');
const seats = document.getElementById('seats');

function relabel() {
  const key = `${ruleset.value}/${seats.value}`;
  for (const o of document.querySelectorAll('option[data-labels]')) {
    let labels = {};
    try {
      labels = JSON.parse(o.dataset.labels);
    } catch {
      // A label the page cannot read leaves the bare name.
    }
    o.textContent = labels[key] || o.dataset.title;
  }
}

if (ruleset && seats) {
  ruleset.addEventListener('change', relabel);
  seats.addEventListener('change', relabel);
}
