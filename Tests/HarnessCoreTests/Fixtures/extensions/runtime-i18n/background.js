// The default locale's messages, Safari's predefined ones, and the network, which is not there.
console.log('i18n', browser.i18n.getMessage('greeting', ['3', 'Ada']), '|', browser.i18n.getMessage('missing'), '|',
  browser.i18n.getMessage('@@ui_locale'), browser.i18n.getUILanguage(), browser.i18n.getMessage('name'));
fetch('https://example.com/').catch((error) => console.log('fetch', error.message));
