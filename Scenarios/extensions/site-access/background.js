// A click on the toolbar item asks for access to the tab's site (in the click's gesture, as
// Safari requires); the tab's badge says whether the user gave it.
chrome.action.onClicked.addListener((tab) => {
    const site = new URL(tab.url).origin + '/*';
    chrome.permissions.request({ origins: [site] }).then((granted) => {
        console.log(`${granted ? 'granted' : 'refused'} ${site}`);
        return chrome.action.setBadgeText({ tabId: tab.id, text: granted ? 'on' : '' });
    }, (error) => console.log(`not asked: ${error.message}`));
});

// An extension page asks through the worker: its message, sent in the user's click, carries
// the gesture, so the listener may ask Safari at once.
chrome.runtime.onMessage.addListener((message) => {
    if (message?.type !== 'ask') return undefined;
    return chrome.permissions.request({ origins: [message.site] });
});

// Safari says what the user granted and what was taken back (the user in Safari's settings, or
// the options page), and wakes the worker to hear it. A site taken back clears every tab's badge:
// the worker no longer knows which tabs are on it.
chrome.permissions.onAdded.addListener(({ permissions, origins }) => {
    console.log(`added ${[...permissions, ...origins].join(', ')}`);
});
chrome.permissions.onRemoved.addListener(async ({ permissions, origins }) => {
    console.log(`removed ${[...permissions, ...origins].join(', ')}`);
    for (const tab of await chrome.tabs.query({})) await chrome.action.setBadgeText({ tabId: tab.id, text: '' });
});

// What the user granted outlives Safari: at each launch the worker says which sites it has.
chrome.runtime.onStartup.addListener(async () => {
    const { origins } = await chrome.permissions.getAll();
    console.log(`at launch it has ${origins.join(', ') || 'no site'}`);
});
