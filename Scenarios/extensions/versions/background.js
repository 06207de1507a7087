// Says, on each install or update, what it was and what it is now.
browser.runtime.onInstalled.addListener(({ reason, previousVersion }) => {
  const now = browser.runtime.getManifest().version;
  console.log(reason === 'update' ? `updated from ${previousVersion} to ${now}` : `${reason} as ${now}`);
});
