// A content script's message reaches the extension's pages too.
chrome.runtime.sendMessage('from the page?').then((answer) => console.log(`content -> ${answer ?? 'nothing'}`));
