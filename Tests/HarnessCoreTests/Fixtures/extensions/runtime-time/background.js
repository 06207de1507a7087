// Local time is the scenario's: what a script reads of it, writes to it and parses as it.
const now = new Date();
console.log('local', now.getHours(), now.getMinutes(), now.getTimezoneOffset(), String(now));
console.log('read', new Date(2026, 2, 1, 10, 0).toISOString(), new Date('2026-03-01T10:00').toISOString(),
  new Date('2026-03-01').toISOString(), Date.parse('2026-03-01T10:00:00Z'));
const later = new Date(now);
later.setHours(23, 30);
console.log('set', later.toISOString(), later.getDate());
console.log('intl', new Intl.DateTimeFormat('en-GB', { timeStyle: 'short' }).format(), now.toLocaleTimeString('en-GB'));
