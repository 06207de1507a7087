// Asks the worker, then sets the badge itself once it answered; reads the badge back later.
document.getElementById('go').addEventListener('click', async () => {
    await browser.runtime.sendMessage('go');
    await browser.action.setBadgeText({ text: 'P' });
});
document.getElementById('read').addEventListener('click', async () => console.log(`badge ${await browser.action.getBadgeText({})}`));
