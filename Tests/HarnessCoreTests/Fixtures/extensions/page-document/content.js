// What real content scripts ask of a page's document, and an observer that never returns.
const found = document.querySelector('[id*=x]:not(p)');
const all = document.querySelectorAll('body *').length;
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, { acceptNode: (node) => node.tagName === 'SPAN' ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP });
const spans = [];
for (let node = walker.nextNode(); node; node = walker.nextNode()) spans.push(node.textContent);
const host = document.getElementById('host');
const shadow = host.attachShadow({ mode: 'open' });
shadow.innerHTML = '<b>inside</b>';
console.log('document', found.id, all, spans.join('|'), shadow.querySelector('b').textContent, getComputedStyle(found).color,
            found instanceof HTMLElement, document.defaultView.Date.now() === Date.now(), document.readyState,
            document.body.dataset.ran === undefined ? 'its own script did not run' : 'its own script ran');
console.log('extension css', getComputedStyle(document.querySelector('span')).color);

const records = [];
new MutationObserver((list) => {
  for (const record of list) records.push(record.type);
  if (document.body.dataset.loop === 'yes') for (;;) {}
}).observe(document.body, { subtree: true, characterData: true, childList: true, attributes: true });
found.firstChild.data = 'changed';
found.append(document.createElement('i'));
Promise.resolve().then(() => console.log('records', records.join(',')));

browser.runtime.onMessage.addListener((message) => {
  if (message === 'loop') document.body.dataset.loop = 'yes';
  if (message === 'count') console.log('still here', records.length);
});
console.log('random', Math.random());
