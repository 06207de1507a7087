// The values settings are made of (SiteSettings' Values.swift and Stamp.swift): modes, themes,
// policies, the fields a site may override, times of day, the schedule window, and the stamps
// that say when and by whom a field last changed.

export const modes = ['on', 'off', 'auto', 'scheduled'];
export const policies = ['respect', 'override'];
/** The themes this version renders. A stored document may name others: kept, rendered as the default. */
export const themes = ['dark', 'gray', 'sepia', 'invert'];
/** The fields a site record may override, in their fixed order. */
export const siteFields = ['mode', 'theme', 'nativeDarkPolicy'];
export const defaultsFields = ['mode', 'theme', 'nativeDarkPolicy', 'schedule'];

export const isKnownTheme = (theme) => themes.includes(theme);

/** Minutes since midnight for exactly `HH:MM`; null for anything else. */
export function parseTimeOfDay(text) {
  const match = typeof text === 'string' ? /^([0-9]{2}):([0-9]{2})$/.exec(text) : null;
  if (!match) return null;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  return hours < 24 && minutes < 60 ? hours * 60 + minutes : null;
}

export const formatTimeOfDay = (minutes) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The daily window [start, end) in local time; an end before the start runs over midnight, equal ends are empty. */
export function scheduleContains({ start, end }, minutes) {
  if (start < end) return start <= minutes && minutes < end;
  if (end < start) return minutes >= start || minutes < end;
  return false;
}

export const scheduleText = ({ start, end }) => `${formatTimeOfDay(start)}-${formatTimeOfDay(end)}`;

/** What a missing document or a missing default field falls back to. */
export const builtInDefaults = Object.freeze({
  mode: 'auto',
  theme: 'dark',
  nativeDarkPolicy: 'respect',
  schedule: Object.freeze({ start: 20 * 60, end: 6 * 60 }),
});

// MARK: Stamps

/** At equal times the app (the control plane) wins over the extension, which wins over imported data. */
const originRank = { imported: 0, extension: 1, app: 2 };
export const origins = Object.keys(originRank);

export const stamp = (at, origin = 'imported', edit = 0) => Object.freeze({ at, origin, edit });

/** Orders stamps: the later time, then the higher-ranked origin, then the higher edit number. */
export function compareStamps(a, b) {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (a.origin !== b.origin) return originRank[a.origin] - originRank[b.origin];
  return a.edit === b.edit ? 0 : a.edit < b.edit ? -1 : 1;
}

export const sameStamp = (a, b) => compareStamps(a, b) === 0;
