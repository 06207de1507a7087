// Registered by the background: marks the page it runs in.
document.documentElement.dataset.marked = 'yes';
