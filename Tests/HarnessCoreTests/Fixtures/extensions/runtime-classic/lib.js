console.log('imported', typeof browser.runtime.onMessage);
