// What lacks.mjs reads in a script's text: browser.* members and the web's globals it calls,
// not what a comment holds nor a member of the same name.
//
// node --experimental-vm-modules --test Tests/JavaScript

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uses } from '../../Sources/HarnessCore/Extension/JavaScript/lacks.mjs';

test('a script\'s uses are the members it names and the globals it calls', () => {
    const found = uses(`
        // new URL('x') in a comment is not a use
        /* nor is localStorage.getItem() here */
        chrome.tabs.create({ url: new URL(base).href });
        const params = new URLSearchParams(location.search);
        page.history.back();
        const fetched = await fetch('https://a.example/');
        browser.storage.local.get('x');
        browser.runtime;`);
    assert.deepEqual(found.api, ['runtime', 'storage.local', 'tabs.create']);
    assert.deepEqual(found.globals, ['URL', 'URLSearchParams', 'fetch', 'location']);
});
