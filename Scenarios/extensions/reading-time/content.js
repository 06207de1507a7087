// Reading time's content script: finds the page's article (an element whose id names it, not a
// paragraph about it), marks it, shows its word count and the colour of the page's own
// headline rule on the root element, and counts again whenever the article's text changes.

const article = document.querySelector('[id*=article]:not(p)');
const root = document.documentElement;

function count() {
  const words = article.textContent.trim().split(/\s+/).filter(Boolean).length;
  root.dataset.words = String(words);
}

if (article) {
  article.classList.add('reading-time');
  const headline = article.querySelector('.headline');
  // (Written without spaces, as one word a scenario can name.)
  if (headline) root.dataset.accent = getComputedStyle(headline).color.replace(/\s/g, '');
  count();
  new MutationObserver(count).observe(article, { subtree: true, characterData: true, childList: true });
}

// The popup asks, through the background, for the article's first paragraph to be shortened:
// its text node changes in place, and the observer above hears it. The choice is kept for the
// address, so the page is shortened again when it loads again.
const kept = 'abridged ' + location.href;

function abridge() {
  const first = article?.querySelector('p');
  if (first?.firstChild) first.firstChild.data = 'In short.';
}

browser.runtime.onMessage.addListener((message) => {
  if (message?.type !== 'abridge' || !article) return;
  abridge();
  browser.storage.local.set({ [kept]: true });
});

browser.storage.local.get(kept).then((items) => {
  if (items[kept] === true) abridge();
});
