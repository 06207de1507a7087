// Safari loads the background for runtime.onStartup when it launches, and for
// runtime.onInstalled when the extension or a new version is installed; an ordinary load
// fires neither.
browser.runtime.onStartup.addListener(() => console.log('startup'));
browser.runtime.onInstalled.addListener((details) => console.log('installed', details.reason, details.previousVersion ?? 'first'));
console.log('loaded');
