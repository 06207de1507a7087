// A news page answers every message.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => { sendResponse(`pong-${message}`); });
