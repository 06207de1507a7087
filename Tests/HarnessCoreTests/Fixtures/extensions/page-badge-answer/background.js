// Sets the badge as it answers the popup.
browser.runtime.onMessage.addListener((message) => {
    if (message !== 'go') return undefined;
    browser.action.setBadgeText({ text: 'W' });
    return Promise.resolve('ok');
});
