document.getElementById("toggle").addEventListener("click", () => browser.runtime.sendMessage({ type: "toggleEnabled" }));
