// The layers of @leadline/softphone, bottom first (docs/architecture.md, "Layers").
'use strict';
const { layerConfig } = require('../../scripts/layers.cjs');

module.exports = layerConfig({
  root: __dirname,
  layers: [
    {
      name: 'kernel',
      comment: "the spec's constants, back-off, the error table and the error classes",
      paths: ['^src/constants\\.ts$', '^src/lib/', '^src/errors/'],
    },
    {
      name: 'platform',
      comment: 'the injected browser interfaces (WebRTC, media devices, WebSocket, audio, timers)',
      paths: ['^src/platform/'],
    },
    {
      name: 'signalling',
      comment: 'the PStream client: socket, reconnect, frames, connect tokens',
      paths: ['^src/signalling/'],
    },
    {
      name: 'media',
      comment: 'audio devices and sounds, call quality statistics and MOS',
      paths: ['^src/audio/', '^src/quality/'],
    },
    {
      name: 'call',
      comment: 'a call: its lifecycle, media session, DTMF and feedback',
      paths: ['^src/call/'],
    },
    {
      name: 'device',
      comment: 'the Device: registration, incoming and outgoing calls',
      paths: ['^src/device/'],
    },
    {
      name: 'entry',
      comment: "the SDK's public entry point",
      paths: ['^src/index\\.ts$'],
    },
  ],
});
