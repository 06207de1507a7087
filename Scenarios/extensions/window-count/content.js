// The page logs what the worker says of its window.
chrome.runtime.sendMessage('where').then((answer) => console.log(answer));
