// The options page lists the hosts the dynamic rules block, and blocks trackers too when asked:
// Safari keeps the rules, whichever of the extension's contexts made them.
const net = chrome.declarativeNetRequest;
const show = async () => {
  const rules = await net.getDynamicRules();
  document.getElementById('rules').textContent = rules.map((rule) => rule.condition.urlFilter).join(' ');
};
document.getElementById('block').addEventListener('click', async () => {
  await net.updateDynamicRules({ addRules: [{ id: 3, action: { type: 'block' }, condition: { urlFilter: '||trackers.example.com^' } }] });
  await show();
});
show();
