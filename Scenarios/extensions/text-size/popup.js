// The popup's one control opens the options page.
document.getElementById('settings').addEventListener('click', () => browser.runtime.openOptionsPage());
