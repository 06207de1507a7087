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

// What the user granted outlives Safari: at each launch the worker says which sites it has.
chrome.runtime.onStartup.addListener(async () => {
    const { origins } = await chrome.permissions.getAll();
    console.log(`at launch it has ${origins.join(', ') || 'no site'}`);
});
