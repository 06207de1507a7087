// The popup's error comes in a timer, a second after it opens.
setTimeout(() => { throw new Error('the popup throws later'); }, 1000);
