// The popup makes the snooze alarm (Safari holds it, as the worker's own), reads it back, and
// hears it ring while it is open.
const state = document.getElementById('state');
const show = async () => {
  const alarm = await chrome.alarms.get('snooze');
  if (alarm === undefined) state.textContent = 'Not snoozed';
  else if (alarm.scheduledTime <= Date.now()) state.textContent = 'The snooze is over';
  else state.textContent = `Snoozed until ${new Date(alarm.scheduledTime).toISOString().slice(11, 16)}`;
};
document.getElementById('snooze').addEventListener('click', async () => {
  await chrome.alarms.create('snooze', { delayInMinutes: 5 });
  await chrome.action.setBadgeText({ text: 'z' });
  await show();
});
document.getElementById('wake').addEventListener('click', async () => {
  await chrome.alarms.clear('snooze');
  await chrome.action.setBadgeText({ text: '' });
  await show();
});
chrome.alarms.onAlarm.addListener((alarm) => { state.textContent = `The ${alarm.name} alarm rang`; });
show();
