// Alarms as Safari holds them, read at each question of a tab: a delay below Safari's minimum
// is raised, a one-shot alarm that fired while no listener listened stays, due in the past, and
// a device's sleep moves every alarm later. The background has no alarm listener.
browser.alarms.create('soon', { delayInMinutes: 0.1 });
browser.alarms.create('later', { delayInMinutes: 5 });
browser.runtime.onMessage.addListener(() => {
  browser.alarms.getAll().then((all) => {
    console.log('held', all.map((alarm) => `${alarm.name}:${(alarm.scheduledTime - Date.now()) / 1000}`).join(' ') || 'none');
  });
});
