// Fills the registration form's hidden time zone with the browser's own
// (an IANA name); without one the server keeps UTC.
const field = document.querySelector('input[data-browser-zone]');
try {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (field && zone) field.value = zone;
} catch { /* an old browser: UTC */ }
