/**
 * Wire conformance: one table of scenarios, run against both SDKs in Chromium, with the embedded
 * engine serving HTTPS and WSS (self-signed; Chromium with `--ignore-certificate-errors`) and
 * every ICE candidate on 127.0.0.1. The official `@twilio/voice-sdk` is a client we did not
 * write: when it passes what ours passes, the gateway speaks PStream 1.6 as Twilio does.
 *
 * Audio is judged by listening: the browser's received audio (its dominant frequency) and the
 * virtual lead's recording (Goertzel levels in wall-clock windows). The run prints the table
 * scenario × SDK with pass/fail at the end.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, captureRemoteAudio, toneWav } from '../support/browser';
import {
  HARNESS_SOUNDS,
  startEngineHarness,
  type EngineHarness,
  type HarnessSdk,
} from '../support/engine-harness';
import {
  browserHears,
  callLead,
  callLog,
  callStatus,
  hangUpAndRecord,
  hasClearTone,
  heardBetween,
  letAudioFlow,
  openSoftphonePage,
  placeCall,
  ringAndAccept,
  toneLevelDbfs,
  waitForCallEvent,
  type SoftphonePageWindow,
} from '../support/softphone-page';

const SDKS: HarnessSdk[] = ['leadline', 'twilio'];
const MIC_HZ = 1000;
const LEAD_HZ = 440;
/** A tone this far below the open-mic level counts as not heard. */
const SILENT_BELOW_DBFS = -60;

/** A PStream frame the page sent or received, on its n-th socket. */
interface WireFrame {
  socket: number;
  direction: 'sent' | 'received';
  frame: { type: string; payload: Record<string, unknown> };
}

/** scenario → sdk → outcome, printed at the end. */
const table = new Map<string, Map<HarnessSdk, 'pass' | 'FAIL'>>();

afterAll(() => {
  const rows = [...table].map(
    ([scenario, bySdk]) =>
      `| ${scenario} | ${SDKS.map((sdk) => bySdk.get(sdk) ?? 'not run').join(' | ')} |`,
  );
  console.log(
    [
      '',
      'Conformance: scenario × SDK',
      '',
      `| scenario | ${SDKS.join(' | ')} |`,
      `|---|${SDKS.map(() => '---').join('|')}|`,
      ...rows,
      '',
    ].join('\n'),
  );
});

describe.each(SDKS)('the %s SDK against the embedded engine over TLS', (sdk) => {
  let harness: EngineHarness;
  let browser: Browser;
  let count = 0;

  beforeAll(async () => {
    harness = await startEngineHarness({ tls: true, answerDelayMs: 300 });
    browser = await launchChromium(await toneWav(MIC_HZ, 60), { acceptSelfSigned: true });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /**
   * A fresh page with a registered device of this SDK, for a fresh identity (`deviceOptions` on
   * top of the ones the harness gives each SDK).
   */
  async function phone(
    tokenFlags = '',
    deviceOptions: Record<string, unknown> = {},
  ): Promise<{
    page: Page;
    identity: string;
    /** Every PStream frame on the page's sockets, in order. */
    frames: WireFrame[];
    close: () => Promise<void>;
  }> {
    const identity = `${sdk}-${++count}`;
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const frames: WireFrame[] = [];
    let socket = 0;
    page.on('websocket', (ws) => {
      const n = ++socket;
      const record = (direction: WireFrame['direction'], payload: string | Buffer) => {
        if (typeof payload !== 'string' || !payload.startsWith('{')) return; // heartbeats
        const { type, payload: body } = JSON.parse(payload) as WireFrame['frame'];
        frames.push({ socket: n, direction, frame: { type, payload: body } });
      };
      ws.on('framesent', (f) => record('sent', f.payload));
      ws.on('framereceived', (f) => record('received', f.payload));
    });
    await captureRemoteAudio(page);
    await openSoftphonePage(page, harness, `${identity}${tokenFlags}`, deviceOptions, sdk);
    await harness.waitFor('device.online', (e) => e.identity === identity);
    return { page, identity, frames, close: () => context.close() };
  }

  /** Runs a scenario and records its outcome in the table. */
  function scenario(name: string, run: () => Promise<void>): void {
    it(name, async () => {
      const row = table.get(name) ?? new Map<HarnessSdk, 'pass' | 'FAIL'>();
      table.set(name, row);
      row.set(sdk, 'FAIL');
      await run();
      row.set(sdk, 'pass');
    });
  }

  scenario('register', async () => {
    const { page, close } = await phone();
    expect(
      await page.evaluate(() => (window as unknown as { device: { state: string } }).device.state),
    ).toBe('registered');
    await close();
  });

  scenario('incoming lead call: accept, agent hears 440 Hz, lead hears 1000 Hz', async () => {
    const { page, identity, close } = await phone();
    const call = await ringAndAccept(page, harness, identity, `CAin${sdk}${count}`);
    expect(await browserHears(page, LEAD_HZ)).toBeCloseTo(LEAD_HZ, -2);
    await letAudioFlow(1500);
    const recording = await hangUpAndRecord(harness, call);
    expect(hasClearTone(recording.samples, MIC_HZ, recording.sampleRateHz)).toBe(true);
    await close();
  });

  scenario('outgoing connect to +15550100042: ringing, open, audio both ways', async () => {
    const { page, identity, close } = await phone();
    const call = await callLead(page, harness, identity, '+15550100042');
    const log = await page.evaluate(() =>
      (window as unknown as SoftphonePageWindow).callLog.map((e) => e.event),
    );
    expect(log.indexOf('ringing')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('ringing')).toBeLessThan(log.indexOf('accept'));
    expect(await callStatus(page)).toBe('open');
    expect(await browserHears(page, LEAD_HZ)).toBeCloseTo(LEAD_HZ, -2);
    await letAudioFlow(1500);
    const recording = await hangUpAndRecord(harness, call);
    expect(hasClearTone(recording.samples, MIC_HZ, recording.sampleRateHz)).toBe(true);
    await close();
  });

  scenario('outgoing to a busy number: the call ends with 31486', async () => {
    // Both SDKs report a gateway's 31486 as such only when asked; otherwise as 31005.
    const { page, identity, frames, close } = await phone('', {
      enableImprovedSignalingErrorPrecision: true,
    });
    const since = harness.events.length;
    await placeCall(page, { To: '+15550199001' });
    const placed = await harness.waitFor(
      'outgoing.placed',
      (e) => e.identity === identity,
      15_000,
      since,
    );
    await harness.waitFor(
      'phone.unanswered',
      (e) => e.callSid === placed.callSid && e.reason === 'busy',
      15_000,
      since,
    );
    await waitForCallEvent(page, 'disconnect', 15_000);
    expect(await callStatus(page)).toBe('closed');
    const log = await callLog(page);
    expect(log.map((e) => e.event)).toEqual(['error', 'disconnect']);
    expect(log[0]?.detail).toMatch(/^BusyHere \(31486\)/);
    // On the wire: busy at once, never rung, so the hangup names the call by the temporary id
    // the SDK sent in its invite (the only id it knows).
    const invite = frames.find((f) => f.direction === 'sent' && f.frame.type === 'invite');
    const received = frames.filter((f) => f.direction === 'received' && f.frame.payload.callsid);
    expect(received.map((f) => f.frame)).toEqual([
      {
        type: 'hangup',
        payload: {
          callsid: invite?.frame.payload.callsid,
          error: { code: 31486, message: 'The number is busy.' },
        },
      },
    ]);
    expect(invite?.frame.payload.callsid).not.toBe(placed.callSid);
    await close();
  });

  scenario('mute: the lead stops hearing 1000 Hz; unmute: hears it again', async () => {
    const { page, identity, close } = await phone();
    const call = await callLead(page, harness, identity);
    await letAudioFlow(1200);
    const mutedAt = Date.now();
    await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.mute(true));
    expect(
      await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.isMuted()),
    ).toBe(true);
    const mutedDone = Date.now();
    await letAudioFlow(2000);
    const unmutedAt = Date.now();
    await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.mute(false));
    const unmutedDone = Date.now();
    await letAudioFlow(2000);
    const recording = await hangUpAndRecord(harness, call);
    const level = (from: number, to: number) =>
      toneLevelDbfs(heardBetween(recording, from, to), MIC_HZ, recording.sampleRateHz);
    // Each phase is judged on its second half: a switch takes the media path's delay to reach
    // the lead, which on a busy machine can be several hundred ms.
    const before = level(call.answeredAt + 300, mutedAt - 100);
    const muted = level(mutedDone + 1000, unmutedAt - 100);
    const after = level(unmutedDone + 1000, Date.now() - 300);
    console.log(`${sdk} mute: 1000 Hz at the lead ${before} / ${muted} / ${after} dBFS`);
    expect(before).toBeGreaterThan(-40);
    expect(muted).toBeLessThan(SILENT_BELOW_DBFS);
    expect(after).toBeGreaterThan(-40);
    await close();
  });

  scenario("sendDigits('123#'): the lead logs 1, 2, 3, # in order", async () => {
    const { page, identity, close } = await phone();
    const call = await callLead(page, harness, identity);
    const since = harness.events.length;
    await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.sendDigits('123#'));
    const until = Date.now() + 10_000;
    let digits = '';
    while (digits.length < 4 && Date.now() < until) {
      digits = harness.events
        .slice(since)
        .filter((e) => e.type === 'phone.dtmf' && e.callSid === call.callSid)
        .map((e) => (e as { digits: string }).digits)
        .join('');
      await letAudioFlow(100);
    }
    expect(digits).toBe('123#');
    await hangUpAndRecord(harness, call);
    await close();
  });

  scenario('hangup from the agent', async () => {
    const { page, identity, close } = await phone();
    const call = await callLead(page, harness, identity);
    const since = harness.events.length;
    await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.disconnect());
    await harness.waitFor(
      'agent.left',
      (e) => e.callSid === call.callSid && e.identity === identity,
      10_000,
      since,
    );
    await waitForCallEvent(page, 'disconnect');
    expect(await callStatus(page)).toBe('closed');
    await close();
  });

  scenario('hangup from the lead', async () => {
    const { page, identity, close } = await phone();
    // +15550199004 answers, then hangs up after 3 s; the call's owner (the server's call flows)
    // then ends the call, which reaches the client as `hangup`.
    const since = harness.events.length;
    const call = await callLead(page, harness, identity, '+15550199004');
    await harness.waitFor('phone.left', (e) => e.callSid === call.callSid, 10_000, since);
    harness.engine.hangup(call.callSid);
    await waitForCallEvent(page, 'disconnect', 10_000);
    expect(await callStatus(page)).toBe('closed');
    await close();
  });

  scenario('reject', async () => {
    const { page, identity, close } = await phone();
    const callSid = `CArej${sdk}${count}`;
    const since = harness.events.length;
    expect(await harness.engine.ringAgent(callSid, identity, { From: 'client:7' })).toBe(1);
    await page.waitForFunction(() => (window as unknown as SoftphonePageWindow).calls.length > 0);
    await page.evaluate(() => {
      const w = window as unknown as SoftphonePageWindow;
      w.watchCall(w.calls.at(-1)!);
      w.call!.reject();
    });
    await harness.waitFor('agent.rejected', (e) => e.callSid === callSid, 10_000, since);
    expect(await callStatus(page)).toBe('closed');
    await close();
  });

  scenario('a bad token: 31204 on the wire, 20101 in the SDK; expired: 31205, 20104', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const wireCodes: number[] = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        if (typeof f.payload !== 'string' || !f.payload.startsWith('{')) return;
        const frame = JSON.parse(f.payload) as {
          type: string;
          payload: { error?: { code: number } };
        };
        if (frame.type === 'error' && frame.payload.error) wireCodes.push(frame.payload.error.code);
      }),
    );
    await page.goto(sdk === 'twilio' ? `${harness.url}/twilio.html` : harness.url);
    const codeFor = (token: string) =>
      page.evaluate(
        ({ token, host, global, sounds }) =>
          new Promise<number>((resolve) => {
            const sdkModule = (window as unknown as Record<string, unknown>)[global] as {
              Device: new (
                token: string,
                options: object,
              ) => {
                on(event: 'error', listener: (error: { code: number }) => void): void;
                register(): Promise<void>;
                destroy(): void;
              };
            };
            const device = new sdkModule.Device(token, {
              chunderw: host,
              publishEvents: false,
              sounds,
            });
            device.on('error', (error) => {
              device.destroy();
              resolve(error.code);
            });
            device.register().catch(() => undefined);
          }),
        {
          token,
          host: harness.host,
          global: sdk === 'twilio' ? 'Twilio' : 'Softphone',
          sounds: HARNESS_SOUNDS,
        },
      );
    expect(await codeFor(`${sdk}-bad;invalid`)).toBe(20101);
    expect(await codeFor(`${sdk}-old;expired`)).toBe(20104);
    // A `register` sent before the gateway answered `listen` is refused with the same code.
    expect([...new Set(wireCodes)]).toEqual([31204, 31205]);
    await context.close();
  });

  scenario('tokenWillExpire from a short-lived token', async () => {
    // 12 s left: the event is due 10,000 ms before, about 2 s after registering.
    const { page, close } = await phone(';ttl=12');
    const startedAt = Date.now();
    await page.evaluate(
      () =>
        new Promise<void>((resolve) =>
          (window as unknown as { device: { on(e: string, l: () => void): void } }).device.on(
            'tokenWillExpire',
            () => resolve(),
          ),
        ),
    );
    console.log(`${sdk} tokenWillExpire after ${Date.now() - startedAt} ms (12 s token)`);
    await close();
  });

  scenario(
    'signalling socket cut mid-call: the call survives with the reconnect token',
    async () => {
      const { page, identity, frames, close } = await phone();
      const call = await callLead(page, harness, identity);
      await letAudioFlow(800);
      // The token the gateway gave with the answer.
      const token = frames.find(
        (f) => f.direction === 'received' && f.frame.type === 'answer' && f.frame.payload.reconnect,
      )?.frame.payload.reconnect;
      expect(token).toEqual(expect.any(String));
      const cutAt = Date.now();
      const since = harness.events.length;
      expect(harness.dropSignalling()).toBeGreaterThan(0);
      // The device comes back online on a new socket and the call is taken over with its token.
      const online = await harness.waitFor(
        'device.online',
        (e) => e.identity === identity,
        30_000,
        since,
      );
      await letAudioFlow(1500);
      expect(await callStatus(page)).toBe('open');
      // On its new socket the SDK took the call over with the token, and the gateway accepted.
      const newSocket = frames.filter((f) => f.socket === 2);
      const reconnect = newSocket.find((f) => f.direction === 'sent' && f.frame.type === 'invite');
      expect(reconnect?.frame.payload).toMatchObject({ callsid: call.callSid, reconnect: token });
      expect(
        newSocket.some(
          (f) =>
            f.direction === 'received' &&
            f.frame.type === 'answer' &&
            f.frame.payload.callsid === call.callSid,
        ),
      ).toBe(true);
      expect(await browserHears(page, LEAD_HZ)).toBeCloseTo(LEAD_HZ, -2);
      const afterCut = Date.now();
      await letAudioFlow(1000);
      const recording = await hangUpAndRecord(harness, call);
      const level = toneLevelDbfs(
        heardBetween(recording, afterCut, Date.now() - 300),
        MIC_HZ,
        recording.sampleRateHz,
      );
      console.log(
        `${sdk} socket cut: online again after ${online.at - cutAt} ms, checked at ${afterCut - cutAt} ms; 1000 Hz at the lead ${level} dBFS`,
      );
      expect(level).toBeGreaterThan(-40);
      const left = harness.events.filter(
        (e) => e.type === 'agent.left' && e.callSid === call.callSid && e.at < afterCut,
      );
      expect(left).toEqual([]);
      await close();
    },
  );
});
