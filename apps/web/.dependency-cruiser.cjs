// The web app's layers, bottom first (docs/architecture.md, "Layers").
// Folders are concerns (api, phone, realtime, attention…); where a folder holds both a port and
// what uses it, the module's layer is given by its name (`-port`, `browser-`, `use-`).
'use strict';
const { layerConfig } = require('../../scripts/layers.cjs');

module.exports = layerConfig({
  root: __dirname,
  layers: [
    {
      name: 'kernel',
      comment: 'what every layer shares and that knows no browser: constants, coded errors',
      paths: ['^src/(constants|errors)\\.ts$'],
    },
    {
      name: 'platform',
      comment:
        'the browser behind small interfaces, and the one place that builds them from its globals: timers, clock, fetch, storage, tabs, attention, the realtime client, the service worker',
      paths: [
        '^src/platform/',
        '^src/attention/(attention-port|browser-attention)\\.ts$',
        '^src/realtime/(realtime-port|browser-realtime)\\.ts$',
        '^src/sw/',
      ],
    },
    {
      name: 'services',
      comment:
        'ports and services with no React: the API client and queries, the phone port and its adapters, the outbox, the realtime feed, the sound gate, the network test',
      paths: [
        '^src/api/',
        '^src/phone/',
        '^src/outbox/',
        '^src/network-test/',
        '^src/realtime/(?!(realtime-port|browser-realtime|use-realtime)\\.ts$)',
        '^src/attention/(?!(attention-port|browser-attention|incoming-alerts)\\.ts$)',
      ],
    },
    {
      name: 'console',
      comment:
        'the console’s state: the console machine and its controller, the agent’s actions, the after-call writes, the incoming-call alerts, the phone owner among tabs',
      paths: ['^src/console/', '^src/attention/incoming-alerts\\.ts$', '^src/phone-owner/(?!use-)'],
    },
    {
      name: 'bindings',
      comment:
        'the services as React reaches them: the Services context and the hooks that subscribe to the stores',
      paths: [
        '^src/use-services\\.ts$',
        '^src/realtime/use-realtime\\.ts$',
        '^src/phone-owner/use-phone-owner\\.ts$',
      ],
    },
    {
      name: 'ui',
      comment:
        'the UI kit, no screen of its own: error banner, panel head, focus on mount, formats, avatar, logo, the phone input',
      paths: ['^src/ui/', '^src/phone-input/'],
    },
    {
      name: 'screens',
      comment: 'what the agent sees: the console’s views, the admin area, the floor',
      paths: ['^src/views/', '^src/admin/', '^src/floor/'],
    },
    {
      name: 'shell',
      comment: 'the one screen: the navigation bar and which view or area is shown',
      paths: ['^src/shell/'],
    },
    {
      name: 'composition',
      comment: 'what builds and starts the app: services wiring, App, the entry point',
      paths: ['^src/(services|early-session)\\.ts$', '^src/(app|main)\\.tsx$'],
    },
  ],
  rules: [
    {
      name: 'no-server-code',
      severity: 'error',
      comment:
        'the web app runs in the browser: it reaches the server over HTTP and shares only @leadline/contracts, never the server’s code',
      from: {},
      to: { path: '(^|/)apps/server/|^\\.\\./server/|(^|/)node_modules/@leadline/server/' },
    },
  ],
});
