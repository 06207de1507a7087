// What jsdom does later (a details element's toggle event, a postMessage's message) runs in the
// page's own turns, on the frames' clock, under the watchdog; what it stamps reads that clock;
// no request leaves the page host.
const epoch = 1772355600000;
const details = document.createElement('details');
document.body.append(details);
details.addEventListener('toggle', (event) => console.log('toggle', Date.now() - epoch, event.timeStamp - epoch));
details.open = true;
// A page that clears every timer it might have made does not clear jsdom's.
for (let id = 0; id < 10; id++) clearTimeout(id);
addEventListener('message', (event) => {
  console.log('message', event.data, Date.now() - epoch);
  if (event.data === 'loop') for (;;) {}
});
document.defaultView.postMessage('hello', '*');
const refused = (make) => { try { make(); return 'made'; } catch (error) { return error instanceof TypeError && /cannot stub the network/.test(error.message); } };
console.log('stamps', new Event('x').timeStamp - epoch, Date.parse(document.lastModified) - epoch, document.defaultView.Intl === Intl,
            document.defaultView.Array === Array);
console.log('offline', refused(() => new XMLHttpRequest()), refused(() => new document.defaultView.WebSocket('wss://a.example/')),
            Object.getPrototypeOf(Object.getPrototypeOf(document.defaultView._resourceLoader)).fetch('file:///etc/hostname'));
const frame = document.createElement('iframe');
document.body.append(frame);
console.log('frame', frame.contentWindow.Date.now() - epoch, frame.contentWindow.Math === Math);
browser.runtime.onMessage.addListener((message) => {
  if (message === 'loop') postMessage('loop', '*');
  if (message === 'count') console.log('still here');
  if (message === 'tamper') Object.getPrototypeOf(document.querySelector).harnessWasHere = true;
});
