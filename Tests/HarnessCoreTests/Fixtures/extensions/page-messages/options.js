// The options page answers 'late?' a second later, 'none?' with nothing, and says whose
// messages it hears.
browser.runtime.onMessage.addListener((message, sender) => {
    console.log(`heard ${message} from ${sender.tab === undefined ? new URL(sender.url).pathname : `tab ${sender.tab.id} at ${sender.tab.index}`}`);
    if (message === 'late?') return new Promise((resolve) => setTimeout(() => resolve('late answer'), 1000));
    if (message === 'now?') return Promise.resolve('yes');
    return undefined;
});
