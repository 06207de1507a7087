// Keeps 24 MiB for as long as it is loaded, in 24 arrays of a mebibyte (128 Ki numbers of
// eight bytes each): more than half of a 40 MiB heap.
globalThis.kept = Array.from({ length: 24 }, (_, index) => new Array(128 * 1024).fill(index + 0.5));
