// Each change is heard once the code that made it ran, in the same turn: the top-level code's
// before the load, the load listener's before onInstalled.
new MutationObserver((records) => console.log('mutations', records.map((record) => record.addedNodes[0].nodeName).join(' ')))
    .observe(document.body, { childList: true });
document.body.append(document.createElement('b'));
await Promise.resolve();
console.log('after the await');
window.addEventListener('load', () => {
    document.body.append(document.createElement('i'));
    console.log('loaded');
});
browser.runtime.onInstalled.addListener(() => console.log('installed'));
