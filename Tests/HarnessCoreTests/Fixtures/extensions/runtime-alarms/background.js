// Named alarms, one periodic, one cleared: Safari keeps them across unloads and fires each by
// its name, waking the background, and tells each incarnation the alarms it holds.
browser.alarms.onAlarm.addListener((alarm) => console.log('alarm', alarm.name, alarm.periodInMinutes ?? 'once'));
browser.alarms.getAll().then((all) => console.log('held', all.map((alarm) => `${alarm.name}:${alarm.periodInMinutes ?? 'once'}`).join(',') || 'none'));
browser.alarms.create('refresh', { delayInMinutes: 1, periodInMinutes: 1 });
browser.alarms.create({ delayInMinutes: 10 });
browser.alarms.create('dropped', { delayInMinutes: 1 });
browser.alarms.clear('dropped').then((cleared) => console.log('cleared', cleared));
browser.alarms.get('refresh').then((alarm) => console.log('refresh due', alarm.scheduledTime - Date.now()));
