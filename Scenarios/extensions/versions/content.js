// Says which version of the extension runs in the page.
console.log(`content as ${browser.runtime.getManifest().version}`);
