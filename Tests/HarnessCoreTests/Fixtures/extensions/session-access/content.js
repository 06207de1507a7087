// Says whether storage.session is the content script's, reads it when it is, and says each
// change it hears.
console.log('session', typeof chrome.storage.session, 'session' in chrome.storage, Object.keys(chrome.storage).includes('session'));
if (chrome.storage.session) chrome.storage.session.get('draft').then(({ draft }) => console.log('draft', draft));
chrome.storage.onChanged.addListener((changes, area) => console.log('heard', area, Object.keys(changes).join(',')));
