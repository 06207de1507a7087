// Safari's quotas: 6 MiB is too much for storage.local (5 MiB) and fits storage.session (10 MiB).
const big = 'x'.repeat(6 * 1024 * 1024);
console.log('quotas', browser.storage.local.QUOTA_BYTES, browser.storage.session.QUOTA_BYTES);
browser.storage.local.set({ big }).then(() => console.log('local saved'), (error) => console.log('local refused:', error.message));
browser.storage.session.set({ big })
  .then(() => browser.storage.session.getBytesInUse('big'))
  .then((bytes) => console.log('session holds', bytes));
