// The extension's background: the shell around BackgroundMachine (machine.js). It turns the
// browser's events into the machine's inputs, each with the time it happened, and carries out
// the directives the machine gives back, whose results come back as inputs in turn.
//
// Every listener is registered here, synchronously, while the background loads: Safari wakes a
// background only for the events it listened for then.

import { localItems, readLocal, readSession, sessionItems } from './extension-storage.js';
import { BackgroundMachine } from './machine.js';
import { readFields, readValues } from './native-messages.js';
import { parseScopeKey } from './scope-key.js';

const machine = new BackgroundMachine();

/** A tab's questions waiting for their answer, by tab id: the decision sent to that tab next answers them all (a page that asks again before it heard back still hears back each time). */
const questions = new Map();
/** The popup's numbered changes waiting for their answer, by message number. */
const popupQuestions = new Map();
/** The timeouts of native requests, by the machine's request number. */
const timeouts = new Map();
/** Whether storage.local holds a `snapshotVersion` key (a set cannot remove one). */
let storedVersionKey = false;

/** Hands the machine an input that happened now and carries out what it says. */
function dispatch(input) {
  let directives;
  try {
    directives = machine.handle({ ...input, now: Date.now() });
  } catch (error) {
    console.error(`${input.type}: ${error.stack ?? error}`);
    return;
  }
  for (const directive of directives) carryOut(directive);
}

const ignore = () => {};

function carryOut(directive) {
  switch (directive.type) {
    case 'loadStorage':
      loadStorage();
      break;
    case 'saveLocal': {
      const items = localItems(directive.local, storedVersionKey);
      storedVersionKey ||= 'snapshotVersion' in items;
      browser.storage.local.set(items).then(
        () => dispatch({ type: 'localStorageSaved', token: directive.token }),
        () => dispatch({ type: 'localStorageSaveFailed', token: directive.token }),
      );
      break;
    }
    case 'saveSession':
      browser.storage.session.set(sessionItems(directive.session)).catch(ignore);
      break;
    case 'sendNative':
      browser.runtime.sendNativeMessage(directive.message).then(
        (reply) => dispatch({ type: 'nativeReplyArrived', request: directive.request, reply }),
        (error) => dispatch({ type: 'nativeReplyArrived', request: directive.request, rejected: String(error?.message ?? error) }),
      );
      break;
    case 'setTimer': {
      // Safari puts no limit on a native request: the background keeps its own.
      const { request, at } = directive;
      timeouts.set(request, setTimeout(() => {
        timeouts.delete(request);
        dispatch({ type: 'nativeTimedOut', request });
      }, Math.max(0, at - Date.now())));
      break;
    }
    case 'cancelTimer':
      clearTimeout(timeouts.get(directive.request));
      timeouts.delete(directive.request);
      break;
    case 'setAlarm':
      // One alarm at a time: a new one replaces the old, whatever its name.
      browser.alarms.create('decisions', { when: directive.at }).catch(ignore);
      break;
    case 'connectNative':
      // The app's messages (macOS) arrive only on a port the background holds open.
      browser.runtime.connectNative('application.id').onMessage.addListener((message) => {
        if (message?.type === 'documentChanged') dispatch({ type: 'appMessageArrived' });
      });
      break;
    case 'sendDecision': {
      const waiting = questions.get(directive.tab) ?? [];
      questions.delete(directive.tab);
      for (const respond of waiting) respond(directive.decision);
      if (waiting.length === 0) browser.tabs.sendMessage(directive.tab, { type: 'decision', decision: directive.decision }).catch(ignore);
      break;
    }
    case 'showPopup':
      browser.runtime.sendMessage({ type: 'showPopup', view: directive.view }).catch(ignore);
      break;
    case 'popupAnswer': {
      const answer = { saved: directive.saved, scope: directive.scope };
      const respond = popupQuestions.get(directive.message);
      popupQuestions.delete(directive.message);
      // A change refused for good after it was answered saved is answered again, if the popup still listens.
      if (respond) respond(answer);
      else browser.runtime.sendMessage({ type: 'popupAnswer', message: directive.message, ...answer }).catch(ignore);
      break;
    }
    default:
      console.error(`unknown directive ${directive.type}`);
  }
}

/** Loads storage.local (at its yield point) and storage.session; the machine hears both at once. */
function loadStorage() {
  const local = browser.storage.local.get(null);
  const session = browser.storage.session.get(null).catch(() => null);
  Promise.allSettled([local, session]).then(([stored, storedSession]) => {
    const sessionValue = storedSession.value === null ? null : readSession(storedSession.value);
    if (stored.status === 'rejected') {
      dispatch({ type: 'storageLoadFailed', session: sessionValue });
      return;
    }
    storedVersionKey = 'snapshotVersion' in stored.value;
    dispatch({ type: 'storageLoaded', local: readLocal(stored.value), session: sessionValue });
  });
}

// MARK: - Messages: content scripts, the popup, the system appearance

const pageMessages = {
  getDecision(message, sender, respond) {
    const tab = sender.tab.id;
    questions.set(tab, [...(questions.get(tab) ?? []), respond]);
    dispatch({ type: 'tabRequestedDecision', tab, url: String(message.url ?? sender.tab.url ?? ''), nativeDark: message.nativeDark === true });
    // Answered at once from the cache, or later (the cache still loading, or nothing cached yet).
    return questions.get(tab)?.includes(respond) === true;
  },
  nativeDarkChanged(message, sender) {
    dispatch({ type: 'tabNativeDarkChanged', tab: sender.tab.id, nativeDark: message.nativeDark === true });
  },
  // The system's appearance, as a page saw it change.
  appearanceChanged(message) {
    if (message.appearance === 'light' || message.appearance === 'dark') dispatch({ type: 'appearanceChanged', appearance: message.appearance });
  },
};

const isTime = (value) => Number.isSafeInteger(value) && value >= 0;
const messageNumber = (message) => (Number.isSafeInteger(message.message) ? message.message : 0);

/** A numbered popup change: answered {saved, scope} once the machine says (invalid ones at once, not saved). */
function popupChange(input, message, respond) {
  const number = messageNumber(message);
  if (input === null) {
    respond({ saved: false, scope: null });
    return false;
  }
  popupQuestions.set(number, respond);
  dispatch({ ...input, message: number, at: isTime(message.at) ? message.at : null });
  return popupQuestions.get(number) === respond;
}

const otherMessages = {
  appearanceChanged: pageMessages.appearanceChanged,
  popupOpened(message) {
    dispatch({ type: 'popupOpened', tab: message.tab, ...(typeof message.url === 'string' ? { url: message.url } : {}) });
  },
  popupClosed() {
    dispatch({ type: 'popupClosed' });
  },
  popupChoseScope(message) {
    try {
      dispatch({ type: 'popupChoseScope', scope: parseScopeKey(String(message.scope)) });
    } catch (error) {
      console.warn(`popupChoseScope: ${error.message}`);
    }
  },
  popupEdited(message, respond) {
    const set = message.set === undefined ? {} : readValues(message.set);
    const reset = message.reset === undefined ? [] : readFields(message.reset);
    return popupChange(set && reset && { type: 'popupEdited', set, reset: reset.sort() }, message, respond);
  },
  popupForgotSite(message, respond) {
    return popupChange({ type: 'popupForgotSite' }, message, respond);
  },
  popupPaused(message) {
    if (isTime(message.until)) dispatch({ type: 'popupPaused', until: message.until });
  },
};

browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const type = message?.type;
  // A page's content script speaks for its tab; everything else comes from no tab.
  if (sender.tab) return Object.hasOwn(pageMessages, type) ? pageMessages[type](message, sender, sendResponse) : undefined;
  return Object.hasOwn(otherMessages, type) ? otherMessages[type](message, sendResponse) : undefined;
});

// MARK: - Tabs, windows, alarms

browser.tabs.onActivated.addListener(({ tabId }) => dispatch({ type: 'tabActivated', tab: tabId }));

browser.tabs.onRemoved.addListener((tabId) => {
  questions.delete(tabId);
  dispatch({ type: 'tabClosed', tab: tabId });
});

// Safari coming to the foreground (-1 is windows.WINDOW_ID_NONE: no window has focus).
browser.windows.onFocusChanged.addListener((windowId) => {
  if (windowId !== -1) dispatch({ type: 'safariCameToForeground' });
});

// The alarm only says "time brought a change": its name may be one an earlier incarnation gave.
browser.alarms.onAlarm.addListener(() => dispatch({ type: 'alarmFired' }));

// MARK: - Start

// What Safari says at the start: the system appearance, the open tabs, and whether the app can
// message the extension (macOS). Storage starts loading at once; inputs wait for it.
Promise.all([browser.tabs.query({}), browser.runtime.getPlatformInfo()]).then(([tabs, platform]) => {
  dispatch({
    type: 'started',
    appearance: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
    tabs: tabs.map((tab) => [tab.id, tab.url ?? '']),
    appMessages: platform.os === 'mac',
  });
});
