// Reader's background. The app's default (`readingDefault`) lives in the App Group's defaults,
// which the native handler reads; the sites the reader chose live in storage.local. A page is
// answered from storage at once (cache first), and the app's default is asked for afresh each
// time the background starts. On the Mac, the app tells an open port when its default changes.
const application = 'example.reader';
const hostOf = (url) => new URL(url).hostname;

async function stored() {
  const { readingDefault = false, sites = {} } = await browser.storage.local.get(['readingDefault', 'sites']);
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
  await browser.storage.local.set({ sites });
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
