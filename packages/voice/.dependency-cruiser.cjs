// The layers of @leadline/voice, bottom first (docs/architecture.md, "Layers").
'use strict';
const { layerConfig } = require('../../scripts/layers.cjs');

/** A pattern for the named modules of `src/media/`. */
const media = (names) => `^src/media/(${names.join('|')})\\.ts$`;
/** The media engine's port and its words, which the phone network and the gateway speak too. */
const MEDIA_KERNEL = [
  'media-engine',
  'media-errors',
  'state-machine',
  'platform',
  'participant',
  'file-names',
];
/** The core that runs legs and phone parties in rooms, the worker thread it runs in, its client. */
const MEDIA_WORKER = [
  'media-core',
  'media-worker',
  'media-worker-url',
  'worker-protocol',
  'worker-client',
  'worker-media-engine',
  'engine-state',
  'thread-priority',
];

module.exports = layerConfig({
  root: __dirname,
  layers: [
    {
      name: 'foundation',
      comment: "the spec's constants, G.711, signal processing and WAV files",
      paths: ['^src/constants\\.ts$', '^src/codec/', '^src/dsp/'],
    },
    {
      name: 'kernel',
      comment:
        'the media engine port and its words, media errors, lifecycles, platform timers, the participant of a room',
      paths: [media(MEDIA_KERNEL)],
    },
    {
      name: 'media',
      comment:
        'WebRTC legs, jitter buffer, RTP, DTMF, werift patches, audio sources, rooms and the mixer',
      paths: [`^src/media/(?!(${[...MEDIA_KERNEL, ...MEDIA_WORKER].join('|')})\\.ts$)`],
    },
    {
      name: 'pstn',
      comment: 'the virtual phone network: numbers, their parties, clips, the sandbox call log',
      paths: ['^src/pstn/'],
    },
    {
      name: 'worker',
      comment:
        'the media core (rooms, legs, offer pool, phone parties) in its worker thread, and the client of that thread',
      paths: [media(MEDIA_WORKER)],
    },
    {
      name: 'gateway',
      comment: 'the PStream signalling gateway: sessions, client calls, reconnection',
      paths: ['^src/gateway/'],
    },
    {
      name: 'engine',
      comment: 'the voice engine: the telephony port over the gateway and the media engine',
      paths: ['^src/voice-engine\\.ts$'],
    },
    {
      name: 'entry',
      comment: "the package's entry points",
      paths: ['^src/index\\.ts$'],
    },
  ],
});
