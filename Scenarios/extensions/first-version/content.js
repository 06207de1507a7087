// The first version's content script: the page is inverted while the switch is on. It asks
// when the page loads and each time the page is shown again, and flips when the background
// says the popup's button was pressed.

const invertedLook = "invert(1) hue-rotate(180deg)";

function showLook(enabled) {
  document.documentElement.style.filter = enabled ? invertedLook : "";
}

function flipLook() {
  showLook(!document.documentElement.style.filter.includes("invert"));
}

function askForTheSwitch() {
  browser.runtime.sendMessage({ type: "getEnabled" }).then((answer) => {
    showLook(answer.enabled === true);
  });
}

browser.runtime.onMessage.addListener((request) => {
  if (request.type === "toggleEnabled") {
    flipLook();
  }
});

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") {
    askForTheSwitch();
  }
});

askForTheSwitch();
