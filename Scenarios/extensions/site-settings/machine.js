// The background's logic as a state machine, the same design as the Swift BackgroundMachine:
// cache first (tabs are answered from the cache loaded from storage.local, never waiting for
// native), then reconciled with the native handler; popup changes apply at once, wait in a
// durable outbox, and leave it only when the handler acknowledges them.
//
// It reads no clock and touches no browser API: each input carries its time (`now`), and
// handle(input) returns the directives the shell (background.js) carries out, whose results
// come back as inputs. Its methods are kept by concern: reconcile.js (the native exchange),
// popup-changes.js (the outbox and storage.local), tabs.js (decisions and the popup).
//
// Inputs ({type, now, …}): started {appearance, tabs: [[id, url]], appMessages},
// storageLoaded {local, session}, storageLoadFailed {session}, localStorageSaved {token},
// localStorageSaveFailed {token}, tabRequestedDecision {tab, url, nativeDark},
// tabNativeDarkChanged {tab, nativeDark}, tabActivated {tab}, tabClosed {tab},
// safariCameToForeground, appMessageArrived, appearanceChanged {appearance}, popupOpened {tab, url?},
// popupClosed, popupChoseScope {scope}, popupEdited {set, reset, message, at},
// popupForgotSite {message, at}, popupPaused {until}, nativeReplyArrived {request, reply | rejected},
// nativeTimedOut {request}, alarmFired.
//
// Directives ({type, …}): loadStorage, saveLocal {local, token}, saveSession {session},
// sendNative {request, message}, setTimer {request, at}, cancelTimer {request}, setAlarm {at},
// connectNative, sendDecision {tab, decision}, showPopup {view}, popupAnswer {message, saved, scope}.

import { sameVersion } from './document.js';
import { Outbox } from './outbox.js';
import * as reconcile from './reconcile.js';
import * as popupChanges from './popup-changes.js';
import * as tabDecisions from './tabs.js';

/** A native reply or timeout is part of an exchange, not an event that makes a reconciliation point. */
const nativeExchange = new Set(['nativeReplyArrived', 'nativeTimedOut']);
/** The reconciliation points that try an unreadable storage.local again. */
const retriesUnreadableStorage = new Set(['safariCameToForeground', 'tabActivated', 'alarmFired']);

export class BackgroundMachine {
  /** When the input being handled happened. */
  now = 0;
  appearance = 'light';

  // Extension storage.
  /** {state: 'loading', waiting: [inputs]} until loaded, then 'loaded', or 'unreadable' (nothing may be saved). */
  storage = { state: 'loading', waiting: [] };
  /** The last valid snapshot from the handler, kept in storage.local with the outbox. */
  cache = null;
  /** {documentId, revision} of the snapshot the cache was built from. */
  snapshotVersion = null;
  outbox = new Outbox();
  /** The last save of storage.local failed: the next reconciliation point saves again. */
  saveOwed = false;
  nextToken = 1;
  session = { pausedUntil: null, nativelyDarkTabs: new Set() };

  // The native handler.
  native = {
    /** {state: 'idle', fullResyncAfterNextSnapshot} or {state: 'requested', request, snapshotOwed, fullResyncAfterAnswer}. */
    snapshot: { state: 'idle', fullResyncAfterNextSnapshot: false },
    /** The patch requests out: request number → {edit, owed}. */
    patches: new Map(),
    /** A request failed or timed out: the next event (not a native one) is a reconciliation point. */
    recoveryDue: false,
    nextRequest: 1,
  };
  /** 'awaited', 'heard' (a snapshot answer was usable) or 'givenUp' (nothing cached and native failed: answer from the defaults). */
  firstSnapshot = 'awaited';

  // Tabs and the popup.
  /** What tabs and the popup see (the cache with the confirmed outbox on top); null with neither. */
  resolver = null;
  /** Tab id → {url, nativeDark, waiting (asked, or woken, and due an answer), lastSent}. */
  tabs = new Map();
  /** {tab, chosenScope} while the popup is open. */
  popup = null;

  handle(input) {
    const directives = [];
    // Requests are numbered in the order they are sent: those sent for this input are numbered from here.
    const firstNewRequest = this.native.nextRequest;
    switch (input.type) {
      case 'started':
        this.now = input.now;
        this.appearance = input.appearance;
        // The background cannot know what tabs show after a wake: each gets a fresh decision.
        for (const [id, url] of input.tabs) this.tabs.set(id, { url, nativeDark: false, waiting: true, lastSent: null });
        directives.push({ type: 'loadStorage' });
        // The app's changes arrive only on a port the background holds open.
        if (input.appMessages) directives.push({ type: 'connectNative' });
        break;
      case 'storageLoaded':
      case 'storageLoadFailed': {
        this.now = input.now;
        if (this.storage.state !== 'loading') break;
        const { waiting } = this.storage;
        if (input.type === 'storageLoadFailed') {
          this.adoptSession(input.session);
          directives.push(...this.finishLoading('unreadable', waiting, firstNewRequest));
          break;
        }
        // A cache in memory before a load came from native after an earlier load failed: it is
        // newer than any stored one, which it replaces (and is saved).
        const fromNative = this.cache === null ? null : { cache: this.cache, snapshotVersion: this.snapshotVersion };
        this.adoptLocal(input.local);
        this.adoptSession(input.session);
        if (fromNative && !sameVersion(fromNative.snapshotVersion, this.snapshotVersion)) {
          this.cache = fromNative.cache;
          this.snapshotVersion = fromNative.snapshotVersion;
          directives.push(...this.save());
        }
        directives.push(...this.finishLoading('loaded', waiting, firstNewRequest));
        break;
      }
      default:
        if (this.storage.state === 'loading') {
          this.storage.waiting.push(input);
        } else if (this.storage.state === 'unreadable' && retriesUnreadableStorage.has(input.type)) {
          // A read that failed once may work now; until it does nothing can be saved. The input waits for it.
          this.storage = { state: 'loading', waiting: [input] };
          directives.push({ type: 'loadStorage' });
        } else {
          directives.push(...this.handleLoaded(input, firstNewRequest));
        }
    }
    return directives;
  }

  /** Storage is loaded (or unreadable): the inputs that waited are handled in order, then a reconciliation. */
  finishLoading(state, waiting, firstNewRequest) {
    const directives = [];
    this.storage = { state };
    this.rebuildResolver();
    const loadedAt = this.now;
    for (const input of waiting) directives.push(...this.handleLoaded(input, firstNewRequest));
    // The inputs that waited carry their own, earlier times; what follows happens now.
    this.now = loadedAt;
    directives.push(...this.reconcile(false, firstNewRequest));
    directives.push(...this.pushChangedDecisions());
    return directives;
  }

  /** Any input but the start and the load's result, once storage is loaded (or unreadable). */
  handleLoaded(input, firstNewRequest) {
    const directives = [];
    this.now = input.now;
    if (this.native.recoveryDue && !nativeExchange.has(input.type)) {
      // Recovery after a timeout comes first, at this input's time: every request gets the
      // whole timeout from the moment it is sent.
      this.native.recoveryDue = false;
      directives.push(...this.reconcile(false, firstNewRequest));
    }
    switch (input.type) {
      case 'localStorageSaved':
        this.saveOwed = false;
        directives.push(...this.saveFinished(input.token, true));
        for (const entry of this.outbox.confirmFailedSaves()) directives.push(...this.sendPatch(entry));
        break;
      case 'localStorageSaveFailed':
        // Perhaps after it took effect: memory keeps the change as storage may have, it is
        // shown, it goes out once a save works, and the popup hears "unknown".
        this.saveOwed = true;
        directives.push(...this.saveFinished(input.token, null));
        break;
      case 'tabRequestedDecision': {
        const tab = this.tabs.get(input.tab) ?? { url: input.url, nativeDark: false, waiting: true, lastSent: null };
        const navigated = tab.url !== input.url;
        this.tabs.set(input.tab, { ...tab, url: input.url, nativeDark: input.nativeDark });
        directives.push(...this.rememberNativeDark(input.tab, input.nativeDark));
        directives.push(...this.answer(input.tab));
        if (navigated && this.popup?.tab === input.tab) {
          // The popup is a live view of its tab: a new page has its own scopes.
          this.popup.chosenScope = null;
          directives.push(...this.popupDirective());
        }
        break;
      }
      case 'tabNativeDarkChanged': {
        const tab = this.tabs.get(input.tab);
        if (tab) tab.nativeDark = input.nativeDark;
        directives.push(...this.rememberNativeDark(input.tab, input.nativeDark));
        directives.push(...this.pushChangedDecisions());
        break;
      }
      case 'tabActivated':
      case 'safariCameToForeground':
      case 'appMessageArrived':
        directives.push(...this.reconcile(false, firstNewRequest));
        break;
      case 'tabClosed':
        this.tabs.delete(input.tab);
        if (this.popup?.tab === input.tab) this.popup = null;
        directives.push(...this.rememberNativeDark(input.tab, false));
        break;
      case 'appearanceChanged':
        this.appearance = input.appearance;
        directives.push(...this.pushChangedDecisions());
        break;
      case 'popupOpened': {
        // The popup reads its tab's address itself (tabs.query): a tab gone to a page that runs
        // no content script (about:blank) has told the background nothing since.
        const known = this.tabs.get(input.tab);
        if (known && typeof input.url === 'string') known.url = input.url;
        this.popup = { tab: input.tab, chosenScope: null };
        directives.push(...this.popupDirective());
        break;
      }
      case 'popupClosed':
        this.popup = null;
        break;
      case 'popupChoseScope':
        if (this.popup) this.popup.chosenScope = input.scope;
        directives.push(...this.popupDirective());
        break;
      case 'popupEdited': {
        const scope = this.selectedScope();
        const changes = Object.keys(input.set).length > 0 || input.reset.length > 0;
        if (changes && scope) {
          const change = { type: 'patch', scope, set: input.set, reset: input.reset, stamp: this.popupStamp(input.at) };
          directives.push(...this.recordEdit(change, input.message));
        } else {
          directives.push({ type: 'popupAnswer', message: input.message, saved: false, scope: null });
        }
        break;
      }
      case 'popupForgotSite': {
        const scope = this.selectedScope();
        if (scope) directives.push(...this.recordEdit({ type: 'deleteSite', scope, stamp: this.popupStamp(input.at) }, input.message));
        else directives.push({ type: 'popupAnswer', message: input.message, saved: false, scope: null });
        break;
      }
      case 'popupPaused':
        this.session.pausedUntil = input.until;
        directives.push({ type: 'saveSession', session: this.session });
        directives.push(...this.pushChangedDecisions());
        break;
      case 'nativeReplyArrived':
        directives.push(...this.nativeRequestAnswered(input.request, input, firstNewRequest));
        break;
      case 'nativeTimedOut':
        directives.push(...this.nativeRequestTimedOut(input.request));
        break;
      case 'alarmFired':
        directives.push(...this.pushChangedDecisions());
        break;
      default:
        throw new TypeError(`unknown input ${input.type}`);
    }
    return directives;
  }
}

Object.assign(BackgroundMachine.prototype, reconcile, popupChanges, tabDecisions);
