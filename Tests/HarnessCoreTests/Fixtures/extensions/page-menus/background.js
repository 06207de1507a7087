// Makes an item when the popup asks, loaded since the popup opened: after the popup's own.
browser.menus.onClicked.addListener((info, tab) => console.log(`worker heard ${info.menuItemId} on tab ${tab?.id}`));
browser.runtime.onMessage.addListener((message) => {
    if (message !== 'more') return undefined;
    browser.menus.create({ id: 'later', title: 'Later' });
    return Promise.resolve('made later');
});
