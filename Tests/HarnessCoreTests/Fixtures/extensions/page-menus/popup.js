// Wakes the worker as it opens; makes a checkbox item, then asks the worker for one more; renames
// the worker's item; hears choices.
browser.runtime.sendMessage('hello');
document.getElementById('add').addEventListener('click', () => {
    browser.menus.create({ id: 'pin', title: 'Pin', type: 'checkbox' }, async () => {
        console.log('popup made pin');
        console.log(`worker ${await browser.runtime.sendMessage('more')}`);
    });
});
document.getElementById('rename').addEventListener('click', () => {
    browser.menus.update('later', { title: 'Renamed' }).then(() => console.log('popup renamed'), (error) => console.log(`popup could not rename: ${error.message}`));
});
browser.menus.onClicked.addListener((info, tab) => {
    console.log(`popup heard ${info.menuItemId} checked ${info.checked} on tab ${tab.id}`);
    if (info.menuItemId === 'pin') browser.menus.create({ id: 'from-popup', title: 'From the popup' });
});
