import { describe, expect, it } from 'vitest';
import { fakeEnvironment } from '../testing/fake-platform';
import { advance, flush, registeredDevice, ring } from '../testing/scenarios';

/** A browser's audio codecs, Opus first as Chromium lists them. */
const BROWSER_CODECS: RTCRtpCodec[] = [
  { mimeType: 'audio/opus', clockRate: 48_000, channels: 2 },
  { mimeType: 'audio/G722', clockRate: 8_000 },
  { mimeType: 'audio/PCMA', clockRate: 8_000 },
  { mimeType: 'audio/PCMU', clockRate: 8_000 },
  { mimeType: 'audio/telephone-event', clockRate: 8_000 },
];

// Spec §9: "Codecs: PCMU then Opus."
describe('codec preference (spec §9: PCMU then Opus)', () => {
  it('an answered call prefers PCMU, then Opus, then the browser’s other codecs', async () => {
    const env = fakeEnvironment();
    env.audioCodecs = BROWSER_CODECS;
    const device = await registeredDevice(env);
    const call = await ring(env, device);
    call.accept();
    await flush();
    expect(env.socket().last('answer')).toBeDefined();
    const [preferred] = env.pc().codecPreferences;
    const order = preferred?.map((c) => c.mimeType.toLowerCase());
    expect(order?.slice(0, 2)).toEqual(['audio/pcmu', 'audio/opus']);
    expect([...(order ?? [])].sort()).toEqual(
      BROWSER_CODECS.map((c) => c.mimeType.toLowerCase()).sort(),
    );
  });

  it('an outgoing call’s offer prefers PCMU, then Opus', async () => {
    const env = fakeEnvironment();
    env.audioCodecs = BROWSER_CODECS;
    const device = await registeredDevice(env);
    await device.connect({ params: { To: '+15550100042' } });
    await flush();
    expect(env.socket().last('invite')).toBeDefined();
    const order = env.pc().codecPreferences[0]?.map((c) => c.mimeType.toLowerCase());
    expect(order?.slice(0, 2)).toEqual(['audio/pcmu', 'audio/opus']);
  });
});

/** Spec §9: "ICE gathering timeout 15000 ms". */
const ICE_GATHERING_TIMEOUT_MS = 15_000;

describe(`ICE gathering (spec §9: gives up after ${ICE_GATHERING_TIMEOUT_MS} ms)`, () => {
  it('the answer waits for gathering to complete…', async () => {
    const env = fakeEnvironment();
    env.iceGathering = 'gathering';
    const device = await registeredDevice(env);
    const call = await ring(env, device);
    call.accept();
    await advance(env, 3_000);
    expect(env.socket().last('answer')).toBeUndefined();
    env.pc().finishGathering();
    await flush();
    expect(env.socket().last('answer')).toEqual({ callsid: 'CA1', sdp: 'v=0 fake-answer' });
  });

  it(`…and goes out with what was gathered once ${ICE_GATHERING_TIMEOUT_MS} ms have passed`, async () => {
    const env = fakeEnvironment();
    env.iceGathering = 'gathering';
    const device = await registeredDevice(env);
    const call = await ring(env, device);
    call.accept();
    await flush();
    // The gateway's heartbeats keep the socket alive meanwhile (`advance`).
    await advance(env, ICE_GATHERING_TIMEOUT_MS - 1);
    expect(env.socket().last('answer')).toBeUndefined();
    await advance(env, 1);
    expect(env.socket().last('answer')).toEqual({ callsid: 'CA1', sdp: 'v=0 fake-answer' });
  });
});
