// Answers the first message that comes on a port the popup opens, and closes the port at once:
// what the popup posts in answer goes nowhere.
browser.runtime.onConnect.addListener((port) => {
    console.log(`content took ${port.name} from ${port.sender.url}`);
    port.onMessage.addListener((message) => {
        port.postMessage(`heard ${message}`);
        port.disconnect();
    });
});
