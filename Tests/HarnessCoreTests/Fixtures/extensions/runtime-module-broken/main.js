import { answer } from './lib.js';
browser.runtime.onMessage.addListener(() => answer);
