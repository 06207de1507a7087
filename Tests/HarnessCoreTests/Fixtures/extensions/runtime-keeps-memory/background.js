// Keeps 24 MiB for as long as it is loaded (three mebi-numbers, eight bytes each): more than half
// of a 32 MiB heap.
globalThis.kept = new Array(3 * 1024 * 1024).fill(0.5);
