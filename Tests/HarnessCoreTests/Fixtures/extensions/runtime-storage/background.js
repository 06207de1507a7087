// Counts its loads in storage.local; each step finishes when the harness completes it.
browser.storage.onChanged.addListener((changes, area) => console.log('changed', area, JSON.stringify(changes)));
browser.storage.local.get({ loads: 0 })
  .then(({ loads }) => {
    console.log('loads', loads);
    return browser.storage.local.set({ loads: loads + 1 });
  })
  .then(() => console.log('saved'), (error) => console.log('not saved:', error.message));
