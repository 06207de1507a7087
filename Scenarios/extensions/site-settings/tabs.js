// Tabs and the popup (BackgroundMachine+Tabs.swift): what they see (the cache with the
// confirmed outbox on top), the decision each tab is sent and when, the alarm for the next
// change that time brings, and what the popup shows. Methods of BackgroundMachine.

import { applyEdit, emptyDocument } from './document.js';
import { editOf } from './native-messages.js';
import { parsePageAddress, scopeKeysOf } from './page-address.js';
import { popupView } from './popup-view.js';
import { Resolver, decisionJSON, sameDecision } from './resolver.js';
import { hostKey } from './scope-key.js';

const defaultsResolver = new Resolver(emptyDocument());

// MARK: - Session storage

/** Takes storage.session at a load: tabs Safari named at the start are natively dark as their content scripts last said. */
export function adoptSession(stored) {
  this.session = stored ?? { pausedUntil: null, nativelyDarkTabs: new Set() };
  for (const id of this.session.nativelyDarkTabs) {
    const tab = this.tabs.get(id);
    if (tab) tab.nativeDark = true;
  }
}

/**
 * Keeps whether a tab's page is natively dark in storage.session (a background woken later
 * learns the open tabs' pages from Safari, not how they look). Tabs no longer open are forgotten.
 */
export function rememberNativeDark(id, nativeDark) {
  const next = new Set([...this.session.nativelyDarkTabs].filter((tab) => this.tabs.has(tab)));
  if (nativeDark) next.add(id);
  else next.delete(id);
  const current = this.session.nativelyDarkTabs;
  if (next.size === current.size && [...next].every((tab) => current.has(tab))) return [];
  this.session.nativelyDarkTabs = next;
  return [{ type: 'saveSession', session: this.session }];
}

// MARK: - Decisions

/** Tabs can be answered from the cache, or from the built-in defaults once the first snapshot was given up on. */
export function canAnswer() {
  return this.firstSnapshot === 'givenUp' || this.cache !== null;
}

/** Answers a tab that asked, or leaves it waiting while there is nothing to answer from. */
export function answer(id) {
  const tab = this.tabs.get(id);
  if (tab === undefined) return [];
  if (!this.canAnswer()) {
    tab.waiting = true;
    return [];
  }
  const decision = this.decide(tab);
  Object.assign(tab, { waiting: false, lastSent: decision });
  const directives = [{ type: 'sendDecision', tab: id, decision: decisionJSON(decision) }];
  // The alarm set now replaces the one set before: a change that came with time since (a
  // pause's end, a schedule boundary) must reach the other tabs now, or nothing would bring it.
  const changedWithTime = [...this.tabs].some(
    ([other, t]) => other !== id && !t.waiting && t.lastSent !== null && !sameDecision(this.decide(t), t.lastSent),
  );
  directives.push(...(changedWithTime ? this.pushChangedDecisions() : this.alarm()));
  return directives;
}

/** Answers every waiting tab, in the order of their ids. */
export function answerWaitingTabs() {
  return this.sortedTabIds().flatMap((id) => (this.tabs.get(id)?.waiting ? this.answer(id) : []));
}

export function sortedTabIds() {
  return [...this.tabs.keys()].sort();
}

/** A tab's decision now, from what tabs see (the built-in defaults with nothing cached). */
export function decide(tab) {
  const context = { appearance: this.appearance, now: this.now, pausedUntil: this.session.pausedUntil, pageIsNativelyDark: tab.nativeDark };
  return (this.resolver ?? defaultsResolver).decide(tab.url, context);
}

/**
 * Sends a new decision to every tab whose decision changed (a tab waiting for an answer gets
 * one even when it is the one it had), updates the popup, and sets the alarm.
 */
export function pushChangedDecisions() {
  if (!this.canAnswer()) return [];
  const directives = [];
  for (const id of this.sortedTabIds()) {
    const tab = this.tabs.get(id);
    const decision = this.decide(tab);
    if (!tab.waiting && sameDecision(decision, tab.lastSent)) continue;
    Object.assign(tab, { waiting: false, lastSent: decision });
    directives.push({ type: 'sendDecision', tab: id, decision: decisionJSON(decision) });
  }
  directives.push(...this.popupDirective(), ...this.alarm());
  return directives;
}

/** The alarm for the earliest time an answered tab's decision could change with no event: the pause's end, or a schedule boundary. */
export function alarm() {
  let next = null;
  const consider = (time) => {
    if (time > this.now && (next === null || time < next)) next = time;
  };
  if (this.session.pausedUntil !== null && this.session.pausedUntil > this.now) consider(this.session.pausedUntil);
  for (const tab of this.tabs.values()) {
    const settings = tab.lastSent?.settings;
    if (settings?.mode !== 'scheduled') continue;
    consider(nextOccurrence(settings.schedule.start, this.now));
    consider(nextOccurrence(settings.schedule.end, this.now));
  }
  return next === null ? [] : [{ type: 'setAlarm', at: next }];
}

/** The next time after `now` the local clock reads `minutes` past midnight. */
function nextOccurrence(minutes, now) {
  const date = new Date(now);
  date.setHours(Math.floor(minutes / 60), minutes % 60, 0, 0);
  if (date.getTime() <= now) date.setDate(date.getDate() + 1);
  return date.getTime();
}

// MARK: - The popup

/** What the open popup shows, when it is open on a known tab. */
export function popupDirective() {
  const tab = this.popup && this.tabs.get(this.popup.tab);
  if (!tab) return [];
  const pausedUntil = this.session.pausedUntil !== null && this.session.pausedUntil > this.now ? this.session.pausedUntil : null;
  const address = parsePageAddress(tab.url);
  const view = { tab: this.popup.tab, url: tab.url, unsupported: address === null, scopes: [], selectedScope: null, settings: null, pausedUntil };
  if (address !== null) {
    view.scopes = scopeKeysOf(address);
    view.selectedScope = this.selectedScope();
    view.settings = (this.resolver ?? defaultsResolver).settings(address);
  }
  return [{ type: 'showPopup', view: popupView(view) }];
}

/** Where a popup change goes: the chosen scope, else the most specific existing record, else the host; null without a popup on a supported page. */
export function selectedScope() {
  const tab = this.popup && this.tabs.get(this.popup.tab);
  const address = tab ? parsePageAddress(tab.url) : null;
  if (address === null) return null;
  const chosen = this.popup.chosenScope;
  if (chosen && scopeKeysOf(address).some((key) => key.text === chosen.text)) return chosen;
  return this.resolver?.record(address)?.key ?? hostKey(address.host);
}

// MARK: - What tabs see

/** Rebuilds what tabs and the popup see from the cache and the confirmed outbox. */
export function rebuildResolver() {
  this.resolver = this.cache === null && this.outbox.items.length === 0 ? null : new Resolver(this.visibleDocument());
}

/** The cached snapshot with every confirmed outbox change applied. */
export function visibleDocument() {
  let visible = this.cache ?? emptyDocument();
  for (const entry of this.outbox.confirmed) {
    try {
      visible = applyEdit(visible, editOf(entry.request)).document;
    } catch {
      // A change the document refuses is not shown.
    }
  }
  return visible;
}
