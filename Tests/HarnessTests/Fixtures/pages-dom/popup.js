// The button's own data names the colour; the answer that comes back is shown below it.
const button = document.getElementById("paint");
button.addEventListener("click", () => {
  browser.runtime.sendMessage({ type: "paint", colour: button.dataset.colour }).then((answer) => {
    document.getElementById("said").textContent = answer;
    if (answer !== "painted red") throw new Error("the popup was answered " + JSON.stringify(answer));
  });
});
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === "word") sendResponse("heard");
});
