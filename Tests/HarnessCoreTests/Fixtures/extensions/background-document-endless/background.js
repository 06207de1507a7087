new MutationObserver(() => { Promise.resolve().then(() => document.body.append(document.createElement('p'))); })
    .observe(document.body, { childList: true });
document.body.append(document.createElement('p'));
