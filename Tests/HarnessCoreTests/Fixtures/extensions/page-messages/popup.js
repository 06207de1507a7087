// The popup asks twice, and never hears its own message.
browser.runtime.onMessage.addListener((message) => { console.log(`the popup heard ${message}`); });
// Its button sets the badge, asks the options page, and reads the badge back after the answer.
document.getElementById('go').addEventListener('click', async () => {
    await browser.action.setBadgeText({ text: 'X' });
    const answer = await browser.runtime.sendMessage('now?');
    console.log(`answer ${answer}, after: ${await browser.action.getBadgeText({})}`);
});
for (const question of ['late?', 'none?']) {
    browser.runtime.sendMessage(question).then((answer) => console.log(`${question} -> ${answer ?? 'nothing'}`));
}
