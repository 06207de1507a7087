// Marks the page with the chosen colour as it loads, and again whenever the colour changes.
function mark(color) {
  document.documentElement.setAttribute('data-highlight', color ?? 'none');
  console.log('highlight', color);
}

browser.storage.sync.get({ color: 'yellow' }).then(({ color }) => mark(color));

browser.storage.onChanged.addListener((changes, area) => {
  if (area === 'sync' && changes.color) mark(changes.color.newValue);
});
