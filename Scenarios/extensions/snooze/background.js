// When the snooze alarm rings, the toolbar item says so: Safari wakes the worker for it.
chrome.alarms.onAlarm.addListener(async (alarm) => {
  if (alarm.name !== 'snooze') return;
  await chrome.action.setBadgeText({ text: '!' });
  console.log(`the snooze rang at ${new Date(alarm.scheduledTime).toISOString().slice(11, 19)}`);
});
