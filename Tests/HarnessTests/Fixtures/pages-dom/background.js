// Answers a page's question with the sender's tab, and passes the popup's word on to the tab
// that is active, with the tab's answer coming back into the popup's answer.
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === "who") {
    sendResponse({ tab: sender.tab.id, url: sender.tab.url });
    return;
  }
  if (message.type === "paint") {
    browser.tabs.query({ active: true, currentWindow: true }).then((tabs) =>
      browser.tabs.sendMessage(tabs[0].id, { type: "paint", colour: message.colour })
    ).then(sendResponse);
    return true;
  }
});
