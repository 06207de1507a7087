browser.runtime.sendMessage({ type: "getEnabled" });
