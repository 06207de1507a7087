// The objects a background's runtime sends on the wire (PROTOCOL.md, sections 3 to 6 and 14),
// each built in one place: the frames (`kind`), and the directives a `done` frame carries
// (`type`), as ExtensionWire's codec reads them. Values that are JSON already (a message, a
// decision, a view) come as the scripts gave them. The inputs the runtime takes are named here
// too, so that a test can hold them against the codec's.

// MARK: - Frames

export const frame = {
    hello: () => ({ kind: 'hello', protocol: 1, role: 'background' }),
    // `at`: the script's place (`background.js:3:7`), when the runtime knows it.
    log: (level, message, at) => (at ? { kind: 'log', level, message: String(message), at: String(at) } : { kind: 'log', level, message: String(message) }),
    yield: (point, seq) => ({ kind: 'yield', point, seq }),
    done: (directives) => ({ kind: 'done', directives }),
    error: (message) => ({ kind: 'error', message }),
    // A host's incarnation that ended on its own, with the status a process would have.
    ended: (code) => ({ kind: 'ended', code }),
    // A host that asks to be replaced (its heap is half full), said as itself (context 0).
    retire: () => ({ kind: 'retire' }),
};

// The status an incarnation ends with when a script's turn ran past the watchdog (that of
// `timeout(1)`); the harness names the watchdog as the cause (`ExtensionRuntime.watchdogExit`).
export const watchdogExit = 124;

// MARK: - Directives

export const directive = {
    listen: (events) => ({ type: 'listen', events }),
    storagePending: (token) => ({ type: 'storagePending', token }),
    setTimer: (script, at) => ({ type: 'setTimer', timer: { script }, at }),
    cancelTimer: (script) => ({ type: 'cancelTimer', timer: { script } }),
    sendNative: (request, message) => ({ type: 'sendNative', request, message }),
    sendDecision: (tab, decision) => ({ type: 'sendDecision', tab: String(tab), decision }),
    showPopup: (view) => ({ type: 'showPopup', view }),
    // `saved` and `scope` are left out when the answer has none.
    popupAnswer: (message, saved, scope) => ({ type: 'popupAnswer', message, saved, scope }),
    connectNative: () => ({ type: 'connectNative' }),
    // `answer` is left out when the page gets nothing.
    answerPage: (id, answer) => (answer === undefined ? { type: 'answerPage', id } : { type: 'answerPage', id, answer }),
    messageTab: (tab, id, message) => ({ type: 'messageTab', tab: String(tab), id, message }),
    messagePopup: (id, message) => ({ type: 'messagePopup', id, message }),
    portPost: (port, message) => ({ type: 'portPost', port, message }),
    portClose: (port) => ({ type: 'portClose', port }),
    connectTab: (port, tab, name) => ({ type: 'connectTab', port, tab: String(tab), name: String(name) }),
    // `name` is left out for the unnamed alarm, and `period` for one that fires once.
    setAlarm: (at, name, period) => {
        const built = { type: 'setAlarm', at };
        if (name !== '') built.name = String(name);
        if (Number.isSafeInteger(period) && period > 0) built.period = period;
        return built;
    },
    clearAlarm: (name) => ({ type: 'clearAlarm', name: String(name) }),
    // What a storage operation changed, for the extension's own pages (as storage.onChanged says it).
    storageChanged: (area, changes) => ({ type: 'storageChanged', area, changes }),
    // tabs.create ({method: 'create', url, active}), update ({method, tab, url?, active?}),
    // reload ({method, tab}) and remove ({method, tabs}), and a script or a style sheet for a
    // tab's page ({method: 'executeScript' | 'insertCSS' | 'removeCSS', tab, func and args |
    // files | code}), answered by `tabsAnswered`.
    tabsCall: (request, call) => ({ type: 'tabsCall', request, ...call }),
    // One property of the toolbar item, for a tab alone (its name) or for every tab (null).
    actionSet: (tab, property, value) => (tab === null ? { type: 'actionSet', property, value } : { type: 'actionSet', property, value, tab }),
    // Every menu item the background has now (menus.create, update, remove, removeAll).
    menusChanged: (items) => ({ type: 'menusChanged', items }),
    // What permissions.remove took back of what the user granted.
    permissionsRemoved: (permissions, origins) => ({ type: 'permissionsRemoved', permissions, origins }),
};

// MARK: - Inputs

// The inputs (`type`) the runtime hands its scripts as events of the browser.* API, each in a
// turn of its own; `started`, `timerFired`, `storageCompleted` and `nativeReplyArrived` it takes
// apart itself.
export const eventInputs = new Set([
    'tabRequestedDecision', 'tabNativeDarkChanged', 'appearanceChanged', 'tabActivated', 'tabClosed', 'safariCameToForeground', 'safariWentToBackground',
    'appMessageArrived', 'alarmFired', 'alarmsChanged', 'popupOpened', 'popupChoseScope', 'popupEdited', 'popupForgotSite',
    'popupPaused', 'popupClosed', 'pageMessage', 'pageAnswered', 'portOpened', 'portMessage', 'portClosed', 'storageChanged',
    'tabCreated', 'tabUpdated', 'tabsAnswered', 'menuClicked', 'commandPressed', 'actionClicked', 'webNavigation', 'permissionsChanged', 'menusChanged',
]);
export const inputs = new Set(['started', 'timerFired', 'storageCompleted', 'nativeReplyArrived', ...eventInputs]);
