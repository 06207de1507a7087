console.log('a content script ran at ' + location.href);
