// Local time is Safari's, as the frame gives it; random numbers come from the run's seed.
const now = new Date();
console.log('local', now.getHours(), now.getTimezoneOffset(), String(now));
console.log('random', Math.random() >= 0 && Math.random() < 1);
