// The worker does not listen: the popup hears the loads on its own.
console.log('worker loaded');
