// The button's own data names the colour; the answer that comes back is shown below it.
const button = document.getElementById("paint");
button.addEventListener("click", () => {
  browser.runtime.sendMessage({ type: "paint", colour: button.dataset.colour }).then((answer) => {
    document.getElementById("said").textContent = answer;
    if (answer !== "painted red") throw new Error("the popup was answered " + JSON.stringify(answer));
  });
});
// Its word names the tabs it sees now.
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type !== "word") return;
  browser.tabs.query({}).then((tabs) => sendResponse(["heard", ...tabs.map((tab) => tab.id)].join("-")));
  return true;
});
