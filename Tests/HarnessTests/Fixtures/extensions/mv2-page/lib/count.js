// Loaded first by the background page: where the sites seen so far are kept.
var counter = { key: 'hosts' };
