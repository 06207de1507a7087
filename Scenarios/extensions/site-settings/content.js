// The page's side: asks the background for this page's decision when it loads, whenever it
// becomes visible, and when the page's own dark theme appears or goes (the question carries
// it); asks again when a question comes back empty; applies every decision it gets (asked for
// or pushed); and tells the background when the system's appearance changes.
(() => {
  const filters = {
    dark: 'invert(0.9) hue-rotate(180deg)',
    gray: 'invert(0.9) hue-rotate(180deg) grayscale(1)',
    sepia: 'sepia(0.6) brightness(0.9)',
    invert: 'invert(1)',
  };
  const root = document.documentElement;

  function apply(decision) {
    if (!decision || typeof decision.enabled !== 'boolean') return;
    if (decision.enabled) {
      root.dataset.theme = decision.theme;
      root.style.filter = filters[decision.theme] ?? filters.dark;
    } else {
      delete root.dataset.theme;
      root.style.removeProperty('filter');
    }
  }

  // A page is natively dark when it says it supports only a dark color scheme, or its
  // background is dark to begin with.
  function isNativelyDark() {
    const meta = document.querySelector('meta[name="color-scheme"]')?.content ?? '';
    if (/\bdark\b/.test(meta) && !/\blight\b/.test(meta)) return true;
    const background = document.body ? getComputedStyle(document.body).backgroundColor : '';
    const [r, g, b, a = 1] = (background.match(/[\d.]+/g) ?? []).map(Number);
    return a > 0 && r !== undefined && 0.2126 * r + 0.7152 * g + 0.0722 * b < 64;
  }

  let nativeDark = false;
  // Safari answers with nothing when no background took the question (one died before it
  // answered, or as it started): the page asks again, unless that is all that keeps coming back.
  let emptyAnswersInARow = 0;
  function ask() {
    nativeDark = isNativelyDark();
    browser.runtime.sendMessage({ type: 'getDecision', url: location.href, nativeDark }).then((decision) => {
      if (decision !== undefined) emptyAnswersInARow = 0;
      else if (++emptyAnswersInARow < 3) ask();
      apply(decision);
    }, () => {});
  }

  browser.runtime.onMessage.addListener((message) => {
    if (message?.type === 'decision') apply(message.decision);
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') ask();
  });
  // The page's own theme may only show once it has loaded, or change later.
  const recheck = () => {
    const now = isNativelyDark();
    if (now === nativeDark) return;
    // The page asks afresh: the question carries the page's own theme, and is answered (or
    // asked again) even when the background that takes it is one that has just started.
    ask();
  };
  document.addEventListener('DOMContentLoaded', recheck);
  // The system's appearance: the background hears of a change from its pages (a decision in
  // mode auto follows it).
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', (event) => {
    browser.runtime.sendMessage({ type: 'appearanceChanged', appearance: event.matches ? 'dark' : 'light' }).catch(() => {});
  });
  new MutationObserver(recheck).observe(root, { subtree: true, attributes: true, attributeFilter: ['class', 'style', 'content'] });
  ask();
})();
