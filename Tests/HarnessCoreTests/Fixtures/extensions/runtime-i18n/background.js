// The default locale's messages, Safari's predefined ones, and the network, which is not there.
console.log('i18n', browser.i18n.getMessage('greeting', ['3', 'Ada']), '|', browser.i18n.getMessage('missing'), '|',
  browser.i18n.getMessage('@@ui_locale'), browser.i18n.getUILanguage(), browser.i18n.getMessage('name'));
fetch('https://example.com/').catch((error) => console.log('fetch', error.message));
// Names a plain object inherits are not messages; a Date subclass is one; Safari has one window.
class Moment extends Date {}
console.log('inherited', JSON.stringify(browser.i18n.getMessage('toString')), new Moment(0) instanceof Moment, new Moment(0).getTime());
browser.tabs.query({ windowId: 2 }).then((tabs) => console.log('window 2', tabs.length));
