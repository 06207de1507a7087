// Named alarms, one periodic, one cleared: Safari keeps them across unloads and fires each by
// its name, waking the background.
browser.alarms.onAlarm.addListener((alarm) => console.log('alarm', alarm.name, alarm.periodInMinutes ?? 'once'));
browser.alarms.create('refresh', { delayInMinutes: 1, periodInMinutes: 1 });
browser.alarms.create('dropped', { delayInMinutes: 1 });
browser.alarms.clear('dropped');
