document.getElementById('wake').addEventListener('click', () => browser.runtime.sendMessage('wake'));
document.getElementById('set').addEventListener('click', () => browser.action.setBadgeText({ text: 'X' }));
