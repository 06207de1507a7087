// The alarms namespace (PROTOCOL.md, sections 14 and 15), made in a context's realm: the
// background's, or an extension page's. Safari keeps an extension's alarms by name ("" for an
// unnamed one), across unloads; a new alarm replaces one of the same name, and Safari raises a
// time or a period below its minimum. A one-shot alarm that fired stays in the list, in the past,
// until it is cleared or made again (WebKit's WebExtensionAlarm::fire drops its timer, not the
// alarm). A context keeps a copy of the list as it creates and clears alarms and as they fire,
// and takes Safari's whole list again whenever Safari hands it over (`hold`). Nothing here
// reaches node.

// `now()`: the frames' clock; `setAlarm(at, name, period)` and `clearAlarm(name)` tell Safari
// (period 0: none); `onAlarm`: the context's event. Returns the namespace's members, `hold(held)`
// (Safari's list, `{name: {at, period?}}`) and `fired(name)`: the alarm as onAlarm gives it,
// its next time taken when it repeats.
export function alarmMembers({ now, setAlarm, clearAlarm, onAlarm }) {
    const alarms = new Map();
    const hold = (held) => {
        alarms.clear();
        for (const [name, alarm] of Object.entries(held ?? {})) {
            if (Number.isSafeInteger(alarm?.at)) alarms.set(name, { at: alarm.at, period: Number.isSafeInteger(alarm.period) ? alarm.period : undefined });
        }
    };
    const alarmOf = (name) => {
        const held = alarms.get(name);
        if (held === undefined) return undefined;
        const alarm = { name, scheduledTime: held.at };
        if (held.period !== undefined) alarm.periodInMinutes = held.period / 60000;
        return alarm;
    };
    // Safari is told even of an alarm this list lacks: it may hold one the list missed.
    const clear = (name) => {
        const had = alarms.delete(name);
        clearAlarm(name);
        return had;
    };
    // When it was due is Safari's to know; the context hears it now. A one-shot alarm stays, at
    // the time it was due, as Safari keeps it (alarms.get still gives it until it is cleared or
    // made again).
    const fired = (name) => {
        const alarm = { name, scheduledTime: now() };
        const held = alarms.get(name);
        if (held?.period !== undefined) {
            alarm.periodInMinutes = held.period / 60000;
            held.at = now() + held.period;
        }
        return alarm;
    };
    const members = {
        onAlarm,
        get(name = '') { return Promise.resolve(alarmOf(String(name))); },
        getAll() { return Promise.resolve([...alarms.keys()].sort().map(alarmOf)); },
        clearAll() {
            const names = [...alarms.keys()].sort();
            for (const name of names) clear(name);
            return Promise.resolve(names.length > 0);
        },
        create(first, second) {
            const name = typeof first === 'string' ? first : '';
            const info = (typeof first === 'string' ? second : first) ?? {};
            const period = info.periodInMinutes === undefined ? undefined : Math.trunc(Number(info.periodInMinutes) * 60000);
            if (period !== undefined && !(period > 0)) throw new TypeError('browser.alarms.create takes periodInMinutes as a number above zero');
            const at = info.when !== undefined ? Math.trunc(Number(info.when))
                : now() + Math.trunc(Number(info.delayInMinutes ?? (period === undefined ? 0 : period / 60000)) * 60000);
            if (!Number.isSafeInteger(at)) throw new TypeError('browser.alarms.create takes when or delayInMinutes as a number');
            alarms.set(name, { at, period });
            setAlarm(at, name, period ?? 0);
            return Promise.resolve(undefined);
        },
        clear(name = '') { return Promise.resolve(clear(String(name))); },
    };
    return { members, hold, fired };
}
