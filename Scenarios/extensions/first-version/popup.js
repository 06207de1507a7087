// The first version's popup: one button, which asks the background to flip the switch.
document.getElementById("toggle").addEventListener("click", () => {
  browser.runtime.sendMessage({ type: "toggleEnabled" });
});
