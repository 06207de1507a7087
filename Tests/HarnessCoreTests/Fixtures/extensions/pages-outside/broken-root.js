// The host reads the page with the page's own functions: one that throws is the script's error,
// and the host goes on.
let broken = true;
const getAttribute = document.documentElement.getAttribute;
document.documentElement.getAttribute = (name) => {
  if (broken) { broken = false; throw new Error('not now'); }
  return getAttribute.call(document.documentElement, name);
};
document.documentElement.classList.add('kept');
