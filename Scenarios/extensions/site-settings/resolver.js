// What applies to a page (SiteSettings' Resolver.swift and Decision.swift): the most specific
// record that exists (page, then host, then domain), each missing field filled from the
// defaults, never fields merged across scopes; then the rendering decision, in this order: an
// unsupported URL is off, an active pause is off, then the mode decides (auto reads the system
// appearance, scheduled the local time), and "on" under the respect policy on a natively dark
// page is off.

import { parsePageAddress } from './page-address.js';
import { domainKey, hostKey, pageKey } from './scope-key.js';
import { builtInDefaults, isKnownTheme, scheduleContains, scheduleText } from './values.js';

export class Resolver {
  #defaults;
  #pages = new Map();
  #hosts = new Map();
  /** Domain records by their registrable domain (without the dot). */
  #domains = new Map();

  /** Indexes a document's records once; build one per document and reuse it. */
  constructor(document) {
    this.#defaults = document.defaults;
    const index = { page: this.#pages, host: this.#hosts, domain: this.#domains };
    for (const { key, values } of document.sites.values()) {
      index[key.kind].set(key.kind === 'domain' ? key.host : key.text, values);
    }
  }

  /** The record that applies to an address, as `{key, values}`, or null. */
  record(address) {
    if (this.#pages.size > 0) {
      const key = pageKey(address.host, address.path);
      const values = this.#pages.get(key.text);
      if (values) return { key, values };
    }
    const values = this.#hosts.get(address.host.text);
    if (values) return { key: hostKey(address.host), values };
    if (this.#domains.size > 0) {
      const key = domainKey(address.host);
      const domainValues = key && this.#domains.get(key.host);
      if (domainValues) return { key, values: domainValues };
    }
    return null;
  }

  /** The effective settings for an address (or for none: the defaults), with where each came from. */
  settings(address) {
    return this.#settings(address === null ? null : this.record(address));
  }

  #settings(match) {
    const defaults = this.#defaults;
    const values = match?.values ?? {};
    const siteTheme = values.theme !== undefined && isKnownTheme(values.theme) ? values.theme : undefined;
    return {
      mode: values.mode ?? defaults.mode,
      theme: siteTheme ?? (isKnownTheme(defaults.theme) ? defaults.theme : builtInDefaults.theme),
      nativeDarkPolicy: values.nativeDarkPolicy ?? defaults.nativeDarkPolicy,
      schedule: defaults.schedule,
      scope: match?.key ?? null,
      modeSource: values.mode === undefined ? 'default' : 'site',
      themeSource: siteTheme === undefined ? 'default' : 'site',
      nativeDarkPolicySource: values.nativeDarkPolicy === undefined ? 'default' : 'site',
    };
  }

  /**
   * The decision for a page's URL. `context` is {appearance, now, pausedUntil (or null),
   * pageIsNativelyDark}; local time is `now` read in the local time zone.
   */
  decide(url, context) {
    const address = parsePageAddress(url);
    if (address === null) return { enabled: false, reason: 'unsupportedUrl', settings: this.#settings(null) };
    const settings = this.settings(address);
    if (context.pausedUntil !== null && context.now < context.pausedUntil) return { enabled: false, reason: 'paused', settings };
    const [on, reason] = modeDecision(settings, context);
    if (on && settings.nativeDarkPolicy === 'respect' && context.pageIsNativelyDark) {
      return { enabled: false, reason: 'nativeDark', settings };
    }
    return { enabled: on, reason, settings };
  }
}

function modeDecision(settings, context) {
  switch (settings.mode) {
    case 'on':
      return [true, 'modeOn'];
    case 'off':
      return [false, 'modeOff'];
    case 'auto':
      return context.appearance === 'dark' ? [true, 'autoDark'] : [false, 'autoLight'];
    default:
      return scheduleContains(settings.schedule, localMinutes(context.now)) ? [true, 'scheduleActive'] : [false, 'scheduleInactive'];
  }
}

/** Minutes since local midnight at a time. */
export function localMinutes(time) {
  const date = new Date(time);
  return date.getHours() * 60 + date.getMinutes();
}

/** A decision as content scripts and traces read it (DecisionJSON.swift). */
export function decisionJSON({ enabled, reason, settings }) {
  return {
    enabled,
    theme: settings.theme,
    reason,
    scope: settings.scope?.text ?? null,
    mode: settings.mode,
    nativeDarkPolicy: settings.nativeDarkPolicy,
    schedule: scheduleText(settings.schedule),
    source: { mode: settings.modeSource, theme: settings.themeSource, nativeDarkPolicy: settings.nativeDarkPolicySource },
  };
}

/** Whether two decisions say the same in every member. */
export const sameDecision = (a, b) => a === b || (a != null && b != null && JSON.stringify(decisionJSON(a)) === JSON.stringify(decisionJSON(b)));
