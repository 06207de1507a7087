// Counts its loads in storage.local; each step finishes when the harness completes it. A count
// that fails is tried once more.
browser.storage.onChanged.addListener((changes, area) => console.log('changed', area, JSON.stringify(changes)));
const count = () => browser.storage.local.get({ loads: 0 })
  .then(({ loads }) => {
    console.log('loads', loads);
    return browser.storage.local.set({ loads: loads + 1 });
  });
count().then(() => console.log('saved'), (error) => {
  console.log('not saved:', error.message);
  return count().then(() => console.log('saved at the second try'), (again) => console.log('not saved again:', again.message));
});
