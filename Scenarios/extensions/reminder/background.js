// A reminder every minute, made of one-shot alarms: each time the background runs, it makes the
// alarm when alarms.get finds none (a common guard against making it twice).
async function ensureAlarm() {
  if (!(await browser.alarms.get('remind'))) await browser.alarms.create('remind', { delayInMinutes: 1 });
}

browser.alarms.onAlarm.addListener(async () => {
  const { count = 0 } = await browser.storage.local.get('count');
  await browser.storage.local.set({ count: count + 1 });
  console.log('reminder', count + 1);
  await ensureAlarm();
});
browser.runtime.onInstalled.addListener(ensureAlarm);
browser.runtime.onStartup.addListener(ensureAlarm);
