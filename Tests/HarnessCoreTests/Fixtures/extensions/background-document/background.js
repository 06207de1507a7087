// What the page's document gives, in the order it happens.
const seen = ['loading ' + document.readyState];
document.addEventListener('DOMContentLoaded', () => seen.push('DOMContentLoaded ' + document.readyState + ' ' + document.getElementById('clipboard').value));
window.addEventListener('load', () => {
    seen.push('load ' + document.readyState);
    console.log(seen.join(' | '));
});

const parsed = new DOMParser().parseFromString('<ul><li>one</li><li>two</li></ul>', 'text/html');
console.log('parsed', parsed.querySelectorAll('li').length, location.href, typeof Node, document instanceof Node, document.defaultView.Date.now() === Date.now());

// An observer hears what the script changed once it ran (the span and the details element,
// below), and its own change in the next round, in the same turn.
const observer = new MutationObserver((records) => {
    console.log('mutations', records.map((record) => record.addedNodes[0].nodeName).join(' '), Date.now());
    if (document.querySelector('em') === null) document.body.append(document.createElement('em'));
});
observer.observe(document.body, { childList: true });
document.body.append(document.createElement('span'));

document.addEventListener('ping', (event) => console.log('ping', event.detail, event instanceof CustomEvent));
document.dispatchEvent(new CustomEvent('ping', { detail: 3 }));

// jsdom's own later work (a details element's toggle) comes on the harness's timers.
const details = document.createElement('details');
details.addEventListener('toggle', () => console.log('toggled', Date.now()));
document.body.append(details);
details.open = true;
