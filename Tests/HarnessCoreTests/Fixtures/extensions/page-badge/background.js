// Woken by the popup, the worker reads the badge 5 s later, in its own timer's turn.
chrome.runtime.onMessage.addListener((message) => {
    if (message !== 'wake') return undefined;
    setTimeout(async () => console.log(`later ${await chrome.action.getBadgeText({})}`), 5000);
    return Promise.resolve('awake');
});
