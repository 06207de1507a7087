// Numbers each site in the order its first page asked, kept in storage.local, and answers a page
// with its site's number.
browser.runtime.onMessage.addListener(async (message) => {
  if (message.type !== 'visit') return undefined;
  const hosts = (await browser.storage.local.get(counter.key))[counter.key] ?? [];
  if (!hosts.includes(message.host)) {
    hosts.push(message.host);
    await browser.storage.local.set({ [counter.key]: hosts });
  }
  return { number: hosts.indexOf(message.host) + 1 };
});
