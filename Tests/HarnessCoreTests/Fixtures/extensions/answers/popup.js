// A script in the popup's body runs while the page is parsed, before DOMContentLoaded.
console.log('popup runs', document.readyState);
document.addEventListener('DOMContentLoaded', () => console.log('popup ready', document.readyState));
