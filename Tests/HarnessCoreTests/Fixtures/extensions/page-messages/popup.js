// The popup asks twice, and never hears its own message.
browser.runtime.onMessage.addListener((message) => { console.log(`the popup heard ${message}`); });
for (const question of ['late?', 'none?']) {
    browser.runtime.sendMessage(question).then((answer) => console.log(`${question} -> ${answer ?? 'nothing'}`));
}
