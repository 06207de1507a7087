import { label } from './names.js';

const $ = (id) => document.getElementById(id);
console.log('module', document.readyState, $('note').hidden, $('note').textContent);
console.log('size', $('size').value, $('size').selectedIndex, [...$('size').options].map((option) => option.text).join('|'));
console.log('paragraphs', $('first').textContent, $('second').parentNode.id, $('not-a-select') === null);
const tabs = await browser.tabs.query({ currentWindow: true });
console.log('tabs', tabs.map(label).join(', '));
const [active] = await browser.tabs.query({ active: true, currentWindow: true });
console.log('active', active.id, active.url);
$('filled').replaceChildren(...['a', 'b'].map((name) => new Option(name.toUpperCase(), name, false, name === 'b')));
console.log('filled', $('filled').value, $('filled').options.length, $('filled').textContent);
$('size').addEventListener('change', (event) => console.log('changed', event.target.value, $('size').selectedIndex));
$('box').addEventListener('change', async () => {
    const [now] = await browser.tabs.query({ active: true, currentWindow: true });
    console.log('box', $('box').checked, now.id);
});
$('inside').addEventListener('click', () => console.log('inside clicked'));
$('note').hidden = false;
console.log('shown', $('note').hidden, $('note').getAttribute('hidden'));
addEventListener('pagehide', () => browser.runtime.sendMessage({ closing: true }));
document.addEventListener('DOMContentLoaded', () => console.log('ready', document.readyState));
import('./names.js').catch((error) => console.log('import()', error instanceof Error, error.message));
try { browser.windows.create(); } catch (error) { console.log('missing', error.message); }
