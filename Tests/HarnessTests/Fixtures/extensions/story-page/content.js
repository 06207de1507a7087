// Builds a story: a title inside #story, three paragraphs, an aside outside it.
const story = document.createElement('div');
story.id = 'story';
story.setAttribute('lang', 'en');
story.style.backgroundColor = 'red';
const title = document.createElement('h1');
title.className = 'title lead';
title.textContent = 'Breaking   news';
story.appendChild(title);
for (const text of ['one', 'two', 'three']) {
  const paragraph = document.createElement('p');
  paragraph.textContent = text;
  story.appendChild(paragraph);
}
const aside = document.createElement('h1');
aside.className = 'title';
aside.textContent = 'Elsewhere';
document.body.appendChild(aside);
document.body.appendChild(story);
// The page's own address, as a content script reads it.
document.body.setAttribute('data-host', location.hostname + new URLSearchParams(location.search).get('id'));
// The platform Safari runs on, as the page's navigator says it.
document.body.setAttribute('data-platform', navigator.platform);
// A frame, 16 ms on while the page is visible: the time since the page loaded.
requestAnimationFrame((time) => document.body.setAttribute('data-frame', String(time)));
