// Shows the colour kept in storage.sync and keeps the one the user picks; the toolbar item's
// badge shows its first letter (Safari holds the badge: the popup reads back what it holds).
const select = document.getElementById('color');
const status = document.getElementById('status');
const badge = document.getElementById('badge');
browser.action.getBadgeText({}).then((text) => { badge.textContent = text || 'none'; });

function show(color) {
  select.value = color;
  status.textContent = `Colour: ${color}`;
}

browser.storage.sync.get({ color: 'yellow' }).then(({ color }) => show(color));

select.addEventListener('change', async () => {
  await browser.action.setBadgeText({ text: select.value.slice(0, 1).toUpperCase() });
  badge.textContent = await browser.action.getBadgeText({});
  await browser.storage.sync.set({ color: select.value });
  show(select.value);
});
