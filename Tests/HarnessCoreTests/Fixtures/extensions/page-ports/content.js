// Answers what comes on a port the popup opens, and closes it when told goodbye.
browser.runtime.onConnect.addListener((port) => {
    console.log(`content took ${port.name} from ${port.sender.url}`);
    port.onMessage.addListener((message) => {
        if (message === 'bye') port.disconnect(); else port.postMessage(`heard ${message}`);
    });
});
