// The first version's background. It owns no state: every question a page or the popup asks
// is passed on to the app's native handler, which keeps the one switch.

browser.runtime.onMessage.addListener((request, sender, sendResponse) => {
  if (request.type === "getEnabled") {
    // A page asks whether to invert: the handler's answer goes back to it as it came.
    browser.runtime.sendNativeMessage({ type: "getEnabled" }, (reply) => {
      sendResponse({ enabled: reply.enabled });
    });
  }

  if (request.type === "toggleEnabled") {
    // The popup's button: the handler flips the switch (its answer is not awaited), and the
    // page in front is told to flip its look at once.
    browser.runtime.sendNativeMessage({ type: "toggleEnabled" });
    browser.tabs.query({ active: true, currentWindow: true }, (tabs) => {
      if (tabs.length > 0) {
        browser.tabs.sendMessage(tabs[0].id, { type: "toggleEnabled" });
      }
    });
  }

  // Keeps every sender waiting for an answer, answered or not.
  return true;
});
