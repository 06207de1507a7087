// The options page lists the sites the extension may read, and asks for the docs site when the
// user clicks (a request outside the click is refused: Safari wants the user's gesture).
const sites = document.getElementById('sites');
const answer = document.getElementById('answer');
const show = async () => {
    const { origins } = await browser.permissions.getAll();
    sites.textContent = origins.join(' ') || 'none';
};
browser.permissions.request({ origins: ['https://docs.example.com/*'] }).catch((error) => console.log(`at load: ${error.message}`));
document.getElementById('ask').addEventListener('click', () => {
    browser.permissions.request({ origins: ['https://docs.example.com/*'] }).then((granted) => {
        answer.textContent = granted ? 'granted' : 'refused';
        return show();
    });
});
// The other button asks the worker, whose listener asks Safari in the click's gesture.
document.getElementById('ask-worker').addEventListener('click', () => {
    browser.runtime.sendMessage({ type: 'ask', site: 'https://blog.example.com/*' }).then((granted) => {
        answer.textContent = granted ? 'granted' : 'refused';
        return show();
    });
});
// The last button gives the docs site back; the list follows what Safari says changed.
document.getElementById('forget').addEventListener('click', () => {
    browser.permissions.remove({ origins: ['https://docs.example.com/*'] }).then((gone) => { answer.textContent = gone ? 'given back' : 'still held'; });
});
// The page hears a toolbar click too (the worker asks for the site).
browser.action.onClicked.addListener((tab) => console.log(`the toolbar item was clicked over tab ${tab.id}`));
browser.permissions.onAdded.addListener(show);
browser.permissions.onRemoved.addListener(show);
show();
