// The worker takes no part: the ports are between the popup and the tab's page.
console.log('worker loaded');
