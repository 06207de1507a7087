// The background says each change of the colour it hears, whoever made it: Safari wakes it
// for storage.onChanged when it had unloaded it.
browser.storage.onChanged.addListener((changes, area) => {
  if (changes.color) console.log(`the ${area} colour is now ${changes.color.newValue}`);
});
