// The popup: a live view of its tab's settings that the background keeps up to date
// (showPopup), and the user's changes sent to the background as numbered messages whose answer
// says whether they were saved.

const $ = (id) => document.getElementById(id);
let nextMessage = 1;
let view = null;

const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
browser.runtime.onMessage.addListener((message) => {
  if (message?.type === 'showPopup' && message.view.tab === tab?.id) show(message.view);
  if (message?.type === 'popupAnswer' && message.saved === false) $('status').textContent = 'The change was refused.';
});
if (tab) browser.runtime.sendMessage({ type: 'popupOpened', tab: tab.id, url: tab.url });
addEventListener('pagehide', () => browser.runtime.sendMessage({ type: 'popupClosed' }));

function show(next) {
  view = next;
  $('unsupported').hidden = !view.unsupported;
  $('settings').hidden = view.unsupported;
  $('paused').textContent = view.pausedUntil ? `Paused until ${new Date(view.pausedUntil).toLocaleTimeString()}` : '';
  if (view.unsupported) return;
  $('scope').replaceChildren(...view.scopes.map((scope) => new Option(scope, scope, false, scope === view.selectedScope)));
  for (const field of ['mode', 'theme', 'nativeDarkPolicy']) {
    const { value, source } = view.fields[field];
    const select = $(field);
    // A field the record sets shows its value; an inherited one shows "Default (value)".
    select.options[0].text = source === 'default' ? `Default (${value})` : 'Default';
    select.value = source === 'site' && view.recordScope === view.selectedScope ? value : '';
  }
  $('schedule').textContent = `Schedule: ${view.schedule}`;
}

/** Sends a numbered change and shows whether it was saved. */
async function change(message) {
  const answer = await browser.runtime.sendMessage({ ...message, message: nextMessage++, at: Date.now() });
  $('status').textContent = answer?.saved === true ? '' : answer?.saved === null ? 'Saving may have failed.' : 'Not saved.';
}

$('scope').addEventListener('change', (event) => browser.runtime.sendMessage({ type: 'popupChoseScope', scope: event.target.value }));
for (const field of ['mode', 'theme', 'nativeDarkPolicy']) {
  $(field).addEventListener('change', (event) => {
    const value = event.target.value;
    change(value === '' ? { type: 'popupEdited', set: {}, reset: [field] } : { type: 'popupEdited', set: { [field]: value }, reset: [] });
  });
}
$('forget').addEventListener('click', () => change({ type: 'popupForgotSite' }));
$('pause').addEventListener('click', () => browser.runtime.sendMessage({ type: 'popupPaused', until: Date.now() + 3_600_000 }));
