// The web's storage and history as a page's script finds them: localStorage by origin for the
// whole run, sessionStorage by tab, DOMContentLoaded reaching the window, and what Safari lacks.
window.addEventListener('DOMContentLoaded', (event) => console.log('window heard', event.type, event.target === document));
const visits = Number(localStorage.getItem('visits') ?? 0) + 1;
localStorage.setItem('visits', String(visits));
sessionStorage.tabVisits = String(Number(sessionStorage.tabVisits ?? 0) + 1);
history.pushState({ step: 1 }, '', '#one');
console.log('visits', visits, sessionStorage.tabVisits, localStorage.length, 'visits' in localStorage, Object.keys(localStorage).join(','),
            history.length, history.state.step, location.hash === '');
browser.runtime.getPlatformInfo().then((info) => console.log('platform', info.os));
console.log('browser info', typeof browser.runtime.getBrowserInfo);
