// Makes its rules when it is installed, and says at each load how many Safari keeps.
const net = chrome.declarativeNetRequest;

async function count(when) {
  const [dynamic, session] = await Promise.all([net.getDynamicRules(), net.getSessionRules()]);
  console.log(when, 'rules', dynamic.length, session.length);
}

chrome.runtime.onInstalled.addListener(async () => {
  await net.updateDynamicRules({ addRules: [{ id: 1, action: { type: 'block' }, condition: { urlFilter: '||ads.example.com^' } }] });
  await net.updateSessionRules({ addRules: [{ id: 2, action: { type: 'allow' }, condition: { requestDomains: ['news.example.com'] } }] });
  await count('installed:');
});

chrome.runtime.onStartup.addListener(() => count('started:'));
