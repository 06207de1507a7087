// A listener the runtime calls: its stack names the scripts' frames only, not the runtime's
// (whose path is the machine's) or node's.
document.addEventListener('DOMContentLoaded', function ready() { console.log('stack', new Error('here').stack.split('\n').join(' |')); });
