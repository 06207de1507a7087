// The background says each change of the colour it hears, whoever made it: Safari wakes it
// for storage.onChanged when it had unloaded it.
// It reads the badge the popup set from Safari, which holds it.
browser.storage.onChanged.addListener(async (changes, area) => {
  if (!changes.color) return;
  console.log(`the ${area} colour is now ${changes.color.newValue}`);
  console.log(`the badge reads ${await browser.action.getBadgeText({})}`);
});
