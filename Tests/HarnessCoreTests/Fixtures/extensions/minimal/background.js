browser.runtime.onMessage.addListener(() => Promise.resolve({ enabled: false }));
