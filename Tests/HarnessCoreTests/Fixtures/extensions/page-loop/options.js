// Each change of storage is answered with a ping.
browser.storage.onChanged.addListener(() => { browser.runtime.sendMessage('ping'); });
