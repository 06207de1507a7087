// One of each object directives.mjs builds (each frame as the text the runtime writes), with
// the inputs the runtime takes, printed as one JSON object for the Swift tests that read them with ExtensionWire's codec
// (RuntimeWireTests). A builder with no sample here is an error, so a new one cannot go unread.

import { fileURLToPath } from 'node:url';
import * as wire from '../../Sources/HarnessCore/Extension/JavaScript/directives.mjs';

// The arguments of each directive's sample, by its builder's name.
const directiveArguments = {
    listen: [['message', 'tabActivated']],
    storagePending: [3],
    setTimer: [2, 1772355601000],
    cancelTimer: [2],
    sendNative: [4, { type: 'getEnabled' }],
    sendDecision: ['t1', { enabled: true, mode: 'on', nativeDarkPolicy: 'respect', reason: 'modeOn', schedule: '20:00-06:00', scope: 'docs.example.com',
                           source: { mode: 'default', nativeDarkPolicy: 'default', theme: 'site' }, theme: 'sepia' }],
    showPopup: [{ pausedUntil: 1783940600000, scopes: [], selectedScope: null, tab: 't2', unsupported: true, url: 'about:blank' }],
    popupAnswer: [5, true, null],
    connectNative: [],
    answerPage: [6, { any: ['json'] }],
    messageTab: ['t2', 7, 'hello'],
    messagePopup: [8, { n: 1 }],
    portPost: [9, [1, 2]],
    portClose: [9],
    connectTab: [-1, 't1', 'words'],
    setAlarm: [1772355660000, 'refresh', 60000],
    clearAlarm: ['refresh'],
    storageChanged: ['local', { theme: { oldValue: 'light', newValue: 'dark' }, gone: { oldValue: 1 } }],
    tabsCall: [10, { method: 'create', url: 'https://a.example/', active: true }],
    actionSet: ['t1', 'badgeText', '3'],
    permissionsRemoved: [['tabs'], ['https://*.example.org/*']],
    menusChanged: [[{ id: 'save', title: 'Save', contexts: ['page'], type: 'checkbox', checked: false, enabled: true, visible: true }]],
};

// The frames' samples: a done frame carries every directive.
const frameArguments = (directives) => ({
    hello: [],
    log: ['warn', 'careful', 'background.js:3:7'],
    yield: ['storage-read', 1],
    done: [directives],
    error: ['a script did not yield within 10000 ms'],
    ended: [1],
    retire: [],
});

export function samples() {
    const directives = Object.entries(wire.directive).map(([name, build]) => {
        if (!Object.hasOwn(directiveArguments, name)) throw new Error(`directives.mjs builds '${name}', which has no sample in wire-samples.mjs`);
        return build(...directiveArguments[name]);
    });
    const frames = Object.entries(wire.frame).map(([name, build]) => {
        const given = frameArguments(directives);
        if (!Object.hasOwn(given, name)) throw new Error(`directives.mjs builds the frame '${name}', which has no sample in wire-samples.mjs`);
        return JSON.stringify(build(...given[name]));
    });
    return { directives, frames, inputs: [...wire.inputs].sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(JSON.stringify(samples()));
