// Reader's background, with a lifecycle bug planted: the sites the reader chose are kept in a
// global, as if the background lived as long as Safari. Safari unloads an idle background, and
// the global goes with it: the next page is read with the app's default again.
const application = 'example.reader';
const hostOf = (url) => new URL(url).hostname;

const sites = {};

async function stored() {
  const { readingDefault = false } = await browser.storage.local.get('readingDefault');
  return { readingDefault, sites };
}

async function readingFor(host) {
  const { readingDefault, sites } = await stored();
  return sites[host] ?? readingDefault;
}

// Every tab hears what it should show now.
async function tellTabs() {
  for (const tab of await browser.tabs.query({})) {
    const host = hostOf(tab.url);
    browser.tabs.sendMessage(tab.id, { type: 'reading', reading: await readingFor(host) }).catch(() => {});
  }
}

async function keepDefault(value) {
  if (typeof value !== 'boolean') return;
  await browser.storage.local.set({ readingDefault: value });
  console.log('readingDefault', value);
  await tellTabs();
}

async function toggle(host) {
  const { readingDefault, sites } = await stored();
  sites[host] = !(sites[host] ?? readingDefault);
  await tellTabs();
  return { reading: sites[host] };
}

// A page asks about its own site (its tab's); the popup names the site of the tab it is over.
browser.runtime.onMessage.addListener((message, sender) => {
  const host = message.host ?? hostOf(sender.tab?.url ?? '');
  if (message.type === 'shouldRead') return readingFor(host).then((reading) => ({ reading }));
  if (message.type === 'toggleSite') return toggle(host);
  return undefined;
});

browser.runtime.connectNative(application).onMessage.addListener((message) => {
  if (message.name === 'defaultChanged') keepDefault(message.userInfo?.readingDefault);
});

browser.runtime.sendNativeMessage(application, { type: 'getDefault', key: 'readingDefault' })
  .then((answer) => keepDefault(answer?.value))
  .catch((error) => console.log('the app did not answer:', error.message));
