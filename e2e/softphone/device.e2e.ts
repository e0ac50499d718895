/**
 * The SDK's Device in Chromium against the embedded engine: registration, an incoming call,
 * volume events, and switching the microphone and speaker during a call. The browser's mic is
 * a 1000 Hz tone; the lead (+15550100042) plays 440 Hz and records what it hears.
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Device } from '@leadline/softphone';
import {
  softphoneWorld,
  expectBrowserHears,
  callStatus,
  hangUpAndRecord,
  hasClearTone,
  heardBetween,
  letAudioFlow,
  ringAndAccept,
  volumesSince,
  waitForCallEvent,
  type SoftphonePageWindow,
} from '../support/softphone-page';

const MIC_HZ = 1000;
const LEAD_HZ = 440;

const world = softphoneWorld(MIC_HZ);

/** Records which output device the call's audio is routed to (setSinkId on its <audio>). */
async function trackSinkIds(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { sinkIds: string[] };
    w.sinkIds = [];
    const prototype = HTMLMediaElement.prototype;
    const setSinkId = Object.getOwnPropertyDescriptor(prototype, 'setSinkId')!.value as (
      this: HTMLMediaElement,
      id: string,
    ) => Promise<void>;
    prototype.setSinkId = function (this: HTMLMediaElement, id: string) {
      w.sinkIds.push(id);
      return setSinkId.call(this, id);
    };
  });
}

const softphone = (identity: string): Promise<Page> => world.softphone(identity, trackSinkIds);

it('register: the device becomes registered and the engine reports it online', async () => {
  const since = world.harness.events.length;
  const page = await world.browser.newPage();
  await page.goto(world.harness.url);
  const states = await page.evaluate(async (host) => {
    const sdk = (window as unknown as { Softphone: { Device: typeof Device } }).Softphone;
    const device = new sdk.Device('agent-reg', { chunderw: host });
    const seen: string[] = [device.state];
    device.on('registering', () => seen.push(device.state));
    device.on('registered', () => seen.push(device.state));
    await device.register();
    (window as unknown as { device: unknown }).device = device;
    return { seen, identity: device.identity, state: device.state };
  }, world.harness.host);
  expect(states).toEqual({
    seen: ['unregistered', 'registering', 'registered'],
    identity: 'agent-reg',
    state: 'registered',
  });
  await world.harness.waitFor('device.online', (e) => e.identity === 'agent-reg', 10_000, since);
  expect(world.harness.engine.isOnline('agent-reg')).toBe(true);

  // And back: unregister, the engine reports it offline.
  await page.evaluate(() =>
    (window as unknown as { device: { unregister(): Promise<void> } }).device.unregister(),
  );
  await world.harness.waitFor('device.offline', (e) => e.identity === 'agent-reg', 10_000, since);
  expect(world.harness.engine.isOnline('agent-reg')).toBe(false);
  await page.close();
});

it('incoming: the engine rings, incoming fires, accept opens the call and the lead is heard', async () => {
  const page = await softphone('agent-in');
  await world.harness.waitFor('device.online', (e) => e.identity === 'agent-in');
  expect(await world.harness.engine.ringAgent('CAin1', 'agent-in', { From: 'client:42' })).toBe(1);
  await page.waitForFunction(
    () => (window as unknown as SoftphonePageWindow).calls.length === 1,
    undefined,
    { timeout: 10_000, polling: 50 },
  );
  const incoming = await page.evaluate(() => {
    const call = (window as unknown as SoftphonePageWindow).calls[0]!;
    return { status: call.status(), direction: call.direction, params: call.parameters };
  });
  expect(incoming).toMatchObject({
    status: 'pending',
    direction: 'INCOMING',
    params: { CallSid: 'CAin1', From: 'client:42' },
  });
  await page.evaluate(() => {
    const w = window as unknown as SoftphonePageWindow;
    w.watchCall(w.calls[0]!);
    w.calls[0]!.accept();
  });
  await waitForCallEvent(page, 'accept', 15_000);
  await world.harness.waitFor(
    'agent.answered',
    (e) => e.callSid === 'CAin1' && e.identity === 'agent-in',
  );
  expect(await callStatus(page)).toBe('open');
  world.harness.engine.dial('CAin1', '+15550100042');
  const answered = await world.harness.waitFor('phone.answered', (e) => e.callSid === 'CAin1');
  await expectBrowserHears(page, LEAD_HZ);
  const recording = await hangUpAndRecord(world.harness, {
    callSid: 'CAin1',
    answeredAt: answered.at,
  });
  expect(hasClearTone(recording.samples, MIC_HZ, recording.sampleRateHz)).toBe(true);
  await waitForCallEvent(page, 'disconnect');
  await page.close();
});

it('volume: events report the fake microphone while it plays', async () => {
  const page = await softphone('agent-vol');
  const call = await ringAndAccept(page, world.harness, 'agent-vol', 'CAvol1');
  const openAt = Date.now();
  await page.waitForFunction(
    (since) =>
      (window as unknown as SoftphonePageWindow).volumes.filter(([at]) => at >= since).length >= 40,
    openAt,
    { timeout: 15_000, polling: 100 },
  );
  const volumes = await volumesSince(page, openAt);
  const inputs = volumes.map((v) => v.input);
  const outputs = volumes.map((v) => v.output);
  const share = (values: number[]) => values.filter((v) => v > 0).length / values.length;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    `volume: ${volumes.length} events, input > 0 in ${(share(inputs) * 100).toFixed(0)} % ` +
      `(mean ${mean(inputs).toFixed(3)}), output > 0 in ${(share(outputs) * 100).toFixed(0)} % ` +
      `(mean ${mean(outputs).toFixed(3)})`,
  );
  expect(inputs.every((v) => v >= 0 && v <= 1)).toBe(true);
  expect(share(inputs)).toBeGreaterThan(0.9);
  expect(share(outputs)).toBeGreaterThan(0.5);
  await hangUpAndRecord(world.harness, call);
  await page.close();
});

it('switching the microphone and the speaker during a call keeps it up with audio both ways', async () => {
  const page = await softphone('agent-switch');
  const call = await ringAndAccept(page, world.harness, 'agent-switch', 'CAswitch1');
  await expectBrowserHears(page, LEAD_HZ);

  const switched = await page.evaluate(async () => {
    const w = window as unknown as SoftphonePageWindow & { sinkIds: string[] };
    const audio = w.device.audio;
    await audio.refreshDevices();
    const track = () => w.call!.getLocalStream()!.getAudioTracks()[0]!;
    const before = track().getSettings().deviceId;
    const virtual = new Set(['default', 'communications']);
    const input = [...audio.availableInputDevices.keys()].find(
      (id) => id !== before && !virtual.has(id),
    )!;
    await audio.setInputDevice(input);
    const speaker = [...audio.availableOutputDevices.keys()].find((id) => !virtual.has(id))!;
    await audio.speakerDevices.set(speaker);
    return {
      inputs: audio.availableInputDevices.size,
      outputs: audio.availableOutputDevices.size,
      before,
      input,
      after: track().getSettings().deviceId,
      live: track().readyState,
      speaker,
      speakers: [...audio.speakerDevices.get()].map((d) => d.deviceId),
      sinkIds: w.sinkIds,
    };
  });
  console.log(`device switch: ${JSON.stringify(switched)}`);
  expect(switched.input).toBeTruthy();
  expect(switched.after).toBe(switched.input);
  expect(switched.after).not.toBe(switched.before);
  expect(switched.live).toBe('live');
  expect(switched.speaker).toBeTruthy();
  expect(switched.speakers).toEqual([switched.speaker]);
  expect(switched.sinkIds).toContain(switched.speaker);

  const switchedAt = Date.now();
  expect(await callStatus(page)).toBe('open');
  await expectBrowserHears(page, LEAD_HZ);
  await letAudioFlow(1_500);
  const end = Date.now();
  expect(await callStatus(page)).toBe('open');
  const recording = await hangUpAndRecord(world.harness, call);
  const afterSwitch = heardBetween(recording, switchedAt + 300, end);
  expect(afterSwitch.length).toBeGreaterThan(recording.sampleRateHz);
  expect(hasClearTone(afterSwitch, MIC_HZ, recording.sampleRateHz)).toBe(true);
  const events = (await page.evaluate(() => (window as unknown as SoftphonePageWindow).callLog))
    .map((e) => e.event)
    .filter((e) => e !== 'warning' && e !== 'warning-cleared');
  expect(events).toEqual(['accept', 'disconnect']);
  await page.close();
});
