// The popup's changes the handler has not acknowledged, oldest first (BackgroundMachine's
// Outbox): each entry is {edit, request, message} as storage.local keeps it (`request` the
// patch or deleteSite message, `message` the popup's number, 0 for none), and each item adds
// where the entry is with the save of storage.local that makes it durable:
//   {state: 'confirmed'}             a save that carries it worked, or it was read from storage:
//                                    it is shown on top of the cache and sent;
//   {state: 'unconfirmed', token}    the save with this token carries it and has not finished:
//                                    neither shown nor sent yet;
//   {state: 'saveFailed'}            its save failed, perhaps after it took effect: shown, but
//                                    sent only once a save works (a later incarnation that never
//                                    read it could give its number to another change).

import { siteFields } from './values.js';

export const confirmed = Object.freeze({ state: 'confirmed' });
export const saveFailed = Object.freeze({ state: 'saveFailed' });
export const unconfirmed = (token) => Object.freeze({ state: 'unconfirmed', token });

/** The record a change touches and the fields it sets or clears (a deletion clears them all). */
function touched(request) {
  const fields = request.type === 'deleteSite' ? siteFields : [...Object.keys(request.set), ...request.reset];
  return { scope: request.scope, fields: new Set(fields) };
}

/** Whether `later` sets or clears every field `earlier` does on the same record, so `earlier` changes nothing after it. */
export function replaces(later, earlier) {
  const [mine, theirs] = [touched(later.request), touched(earlier.request)];
  return mine.scope === theirs.scope && [...theirs.fields].every((field) => mine.fields.has(field));
}

export class Outbox {
  /** @type {{entry: {edit: number, request: object, message: number}, save: object}[]} */
  items = [];
  /** The number the next popup change gets (its stamp's edit number and outbox key). */
  nextEdit = 1;

  /** The outbox storage.local held: everything in it was saved. */
  static stored(entries, nextEdit) {
    const outbox = new Outbox();
    outbox.items = entries.map((entry) => ({ entry, save: confirmed }));
    outbox.nextEdit = nextEdit;
    return outbox;
  }

  /** What storage.local keeps: every change, whatever its save. */
  get entries() {
    return this.items.map((item) => item.entry);
  }

  /** The changes whose save is confirmed, oldest first: shown on top of the cache, and sent. */
  get confirmed() {
    return this.items.filter((item) => item.save.state === 'confirmed').map((item) => item.entry);
  }

  item(edit) {
    return this.items.find((item) => item.entry.edit === edit);
  }

  /** The change the save with this token carries, while it waits for that save. */
  entrySavedWith(token) {
    return this.items.find((item) => item.save.state === 'unconfirmed' && item.save.token === token)?.entry;
  }

  /**
   * Adds a change numbered `nextEdit`. A confirmed change it replaces field for field leaves
   * (the newer stamp wins every field it names anyway), so the outbox, written whole at every
   * change, stays as small as the records and fields waiting.
   */
  add(entry, save) {
    this.items = this.items.filter((item) => !(item.save.state === 'confirmed' && replaces(entry, item.entry)));
    this.items.push({ entry, save });
    this.nextEdit += 1;
  }

  remove(edit) {
    this.items = this.items.filter((item) => item.entry.edit !== edit);
  }

  setSave(save, edit) {
    for (const item of this.items) if (item.entry.edit === edit) item.save = save;
  }

  /** A save worked, so every change whose save failed is durable now: each is confirmed and returned, oldest first. */
  confirmFailedSaves() {
    const entries = [];
    for (const item of this.items) {
      if (item.save.state !== 'saveFailed') continue;
      item.save = confirmed;
      entries.push(item.entry);
    }
    return entries;
  }
}
