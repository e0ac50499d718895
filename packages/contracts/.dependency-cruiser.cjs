// The layers of @leadline/contracts, bottom first (docs/architecture.md, "Layers").
'use strict';
const { layerConfig } = require('../../scripts/layers.cjs');

module.exports = layerConfig({
  root: __dirname,
  layers: [
    {
      name: 'lib',
      comment: 'the shared kit: transition tables, the typed emitter, colour contrast',
      paths: ['^src/lib/'],
    },
    {
      name: 'phone',
      comment: 'phone numbers: parsing, validation, formatting, countries',
      paths: ['^src/phone/'],
    },
    {
      name: 'signalling',
      comment: 'the PStream wire: messages, error codes, connect and access tokens',
      paths: ['^src/signalling/'],
    },
    {
      name: 'telephony',
      comment: "the telephony port: a provider's commands and events, and their participants",
      paths: ['^src/telephony/'],
    },
    {
      name: 'realtime',
      comment: "the realtime channel: Pusher's protocol, the client settings, the events published",
      paths: ['^src/realtime/'],
    },
    {
      name: 'http',
      comment: 'the HTTP API: request and response schemas of every route group',
      paths: ['^src/http/'],
    },
    {
      name: 'entry',
      comment: "the package's root entry point",
      paths: ['^src/index\\.ts$'],
    },
  ],
});
