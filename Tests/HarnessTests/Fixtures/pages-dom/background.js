// Answers a page's question with the sender's tab, and passes the popup's word on to the tab
// that is active, with the tab's answer coming back into the popup's answer.
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === "who") {
    sendResponse({ tab: sender.tab.id, url: sender.tab.url });
    return;
  }
  if (message.type === "paint") {
    browser.tabs.query({ active: true, currentWindow: true }).then(async (tabs) => {
      sendResponse(await browser.tabs.sendMessage(tabs[0].id, { type: "paint", colour: message.colour }));
      // The popup hears the background too; what it answers goes on to the page.
      const word = await browser.runtime.sendMessage({ type: "word" });
      await browser.tabs.sendMessage(tabs[0].id, { type: "word", word });
    });
    return true;
  }
});
