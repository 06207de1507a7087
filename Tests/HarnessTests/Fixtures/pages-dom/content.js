// Runs after DOMContentLoaded. Each feature leaves a mark on the root element.
const root = document.documentElement;
root.classList.add("dark-theme", "extra");
root.classList.remove("extra");
root.style.setProperty("background-color", "black");
const style = document.createElement("style");
style.textContent = "body { color: white; }";
document.head.appendChild(style);
const scheme = matchMedia("(prefers-color-scheme: dark)");
root.dataset.scheme = scheme.matches ? "dark" : "light";
scheme.addEventListener("change", (event) => {
  root.dataset.scheme = event.matches ? "dark" : "light";
});
let shown = 0;
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") root.dataset.shown = String(++shown);
});
browser.runtime.sendMessage({ type: "who" }).then((answer) => {
  root.dataset.tab = answer.tab;
});
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === "paint") {
    root.style.color = message.colour;
    sendResponse("painted " + message.colour);
  }
  if (message.type === "word") root.dataset.popup = message.word;
});
root.dataset.later = "no";
setTimeout((word) => { root.dataset.later = word; }, 1500, "yes");
let ticks = 0;
const ticking = setInterval(() => {
  root.dataset.ticks = String(++ticks);
  if (ticks === 3) clearInterval(ticking);
}, 1000);
