// Each of these fails after the load: in a timer, after a storage answer, in an alarm.
setTimeout(() => { throw new Error('the timer throws'); }, 5000);
browser.storage.local.get('x').then(() => { throw new Error('the storage answer throws'); });
browser.alarms.create('soon', { delayInMinutes: 0.1 });
browser.alarms.onAlarm.addListener(() => { throw new Error('the alarm throws'); });
// Past the check's 30 s: never reached.
setTimeout(() => { throw new Error('too late to be seen'); }, 60000);
