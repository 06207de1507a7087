// Shows the colour kept in storage.sync and keeps the one the user picks.
const select = document.getElementById('color');
const status = document.getElementById('status');

function show(color) {
  select.value = color;
  status.textContent = `Colour: ${color}`;
}

browser.storage.sync.get({ color: 'yellow' }).then(({ color }) => show(color));

select.addEventListener('change', async () => {
  await browser.storage.sync.set({ color: select.value });
  show(select.value);
});
