// What the popup shows for its tab (PopupView.swift): the URL's scope keys (most specific
// first), where an edit made now goes, each field's value and where it comes from ("Default
// (Gray)"), the record the values come from, the schedule, when a pause ends, and whether the
// URL is supported at all.

import { scheduleText } from './values.js';

/** The view as the popup gets it: {tab, url, unsupported, scopes, selectedScope, pausedUntil} and, for a supported URL, {fields, recordScope, schedule}. */
export function popupView({ tab, url, unsupported, scopes, selectedScope, settings, pausedUntil }) {
  const view = { tab, url, unsupported, scopes: scopes.map((key) => key.text), selectedScope: selectedScope?.text ?? null, pausedUntil };
  if (settings) {
    view.fields = {
      mode: { value: settings.mode, source: settings.modeSource },
      theme: { value: settings.theme, source: settings.themeSource },
      nativeDarkPolicy: { value: settings.nativeDarkPolicy, source: settings.nativeDarkPolicySource },
    };
    view.recordScope = settings.scope?.text ?? null;
    view.schedule = scheduleText(settings.schedule);
  }
  return view;
}
