console.log('classic', document.readyState, document.getElementById('size') === null ? 'no size' : 'size');
