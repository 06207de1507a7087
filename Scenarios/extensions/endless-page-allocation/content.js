// Keeps a snapshot of the page for each element it looks at, in a list it never trims, and
// looks again after each snapshot: a walk whose end it never reaches.
const snapshots = [];
for (;;) snapshots.push(new Array(128 * 1024).fill(snapshots.length));
