import { describe, expect, it } from 'vitest';
import { DTMF_GAP_MS, DTMF_PAUSE_MS, DTMF_TONE_MS } from '../constants';
import { FakeClock } from '../testing/fake-clock';
import { FakeDtmfSender, fakeEnvironment } from '../testing/fake-platform';
import { advance, openCall } from '../testing/scenarios';
import { checkDigits, DtmfQueue } from './dtmf';

const PACE_MS = DTMF_TONE_MS + DTMF_GAP_MS;

function queue() {
  const clock = new FakeClock();
  const sender = new FakeDtmfSender(clock);
  const sounds: Array<{ digit: string; at: number }> = [];
  const dtmf = new DtmfQueue(clock, (digit) => sounds.push({ digit, at: clock.now() }));
  return { clock, sender, sounds, dtmf };
}

describe('DTMF digits', () => {
  it.each(['0123456789', '*#', 'w', '1w2ww#', ''])('accepts %j', (digits) => {
    expect(() => checkDigits(digits)).not.toThrow();
  });

  it.each(['a', '1-2', ' ', '12A', 'W', ','])(
    "refuses %j: 'Illegal character passed into sendDigits'",
    (digits) => {
      expect(() => checkDigits(digits)).toThrow('Illegal character passed into sendDigits');
    },
  );
});

describe('DTMF pacing', () => {
  it('hands a run of digits to the browser at once: 160 ms tones, 200 ms gaps', () => {
    const { clock, sender, sounds, dtmf } = queue();
    dtmf.push('123#', sender);
    expect(sender.inserted).toEqual([{ tones: '123#', duration: 160, gap: 200, at: 0 }]);
    clock.tick(2_000);
    expect(sender.played).toEqual([
      { tone: '1', at: 0 },
      { tone: '2', at: PACE_MS },
      { tone: '3', at: 2 * PACE_MS },
      { tone: '#', at: 3 * PACE_MS },
    ]);
    // The feedback sound of a digit plays when its tone starts.
    expect(sounds).toEqual(sender.played.map(({ tone, at }) => ({ digit: tone, at })));
  });

  it('appends later digits to what the browser still has, never replacing it', () => {
    const { clock, sender, dtmf } = queue();
    dtmf.push('12', sender);
    clock.tick(100);
    dtmf.push('3', sender);
    expect(sender.inserted.at(-1)).toMatchObject({ tones: '23', at: 100 });
    clock.tick(2_000);
    expect(sender.played.map((p) => p.tone).join('')).toBe('123');
    expect(sender.played.at(-1)!.at).toBe(2 * PACE_MS);
  });

  it('pauses 500 ms for a w once the digits before it have played', () => {
    const { clock, sender, dtmf } = queue();
    dtmf.push('1w2', sender);
    expect(sender.inserted).toHaveLength(1);
    // '1' at 0, buffer done at 360 (its tone and gap), then the pause.
    clock.tick(PACE_MS + DTMF_PAUSE_MS - 1);
    expect(sender.played.map((p) => p.tone)).toEqual(['1']);
    clock.tick(1);
    expect(sender.played.at(-1)).toEqual({ tone: '2', at: PACE_MS + DTMF_PAUSE_MS });
  });

  it('keeps the order when digits are pushed during a pause', () => {
    const { clock, sender, dtmf } = queue();
    dtmf.push('w1', sender);
    dtmf.push('2', sender);
    clock.tick(DTMF_PAUSE_MS - 1);
    expect(sender.played).toEqual([]);
    clock.tick(2_000);
    expect(sender.played).toEqual([
      { tone: '1', at: DTMF_PAUSE_MS },
      { tone: '2', at: DTMF_PAUSE_MS + PACE_MS },
    ]);
  });

  it('plays the sounds of signalled digits at the same pace', () => {
    const { clock, sounds, dtmf } = queue();
    dtmf.push('1w2', null);
    clock.tick(5_000);
    expect(sounds).toEqual([
      { digit: '1', at: 0 },
      { digit: '2', at: PACE_MS + DTMF_PAUSE_MS },
    ]);
  });

  it('goes on when the browser never says the buffer is done', () => {
    const { clock, dtmf, sounds } = queue();
    const silent = {
      toneBuffer: '',
      inserted: [] as string[],
      insertDTMF(tones: string) {
        this.inserted.push(tones);
      },
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    };
    dtmf.push('1w2', silent);
    clock.tick(10_000);
    expect(silent.inserted).toEqual(['1', '2']);
    expect(sounds).toEqual([]);
  });

  it('drops what is queued on clear', () => {
    const { clock, sender, dtmf } = queue();
    dtmf.push('1w2', sender);
    dtmf.clear();
    clock.tick(5_000);
    expect(sender.inserted.map((i) => i.tones)).toEqual(['1']);
  });
});

describe('call.sendDigits', () => {
  it('sends RFC 4733 digits on the call and plays their sounds', async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env, { sounds: { dtmf1: '/d1.mp3', dtmfh: '/dh.mp3' } });
    call.sendDigits('1#');
    await advance(env, 1_000, {}, 100);
    expect(env.pc().dtmf.played.map((p) => p.tone)).toEqual(['1', '#']);
    expect(env.sounds.get('/d1.mp3')!.plays).toHaveLength(1);
    expect(env.sounds.get('/dh.mp3')!.plays).toHaveLength(1);
    expect(env.socket().last('dtmf')).toBeUndefined();
  });

  it('sends the digits over signalling when the browser cannot send RFC 4733', async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    env.pc().hasDtmf = false;
    call.sendDigits('12w3');
    expect(env.socket().last('dtmf')).toEqual({ callsid: 'CA1', dtmf: '12w3' });
  });

  it("is a 31005 'Could not send DTMF: Signaling channel is disconnected' without either", async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    env.pc().hasDtmf = false;
    const errors: string[] = [];
    call.on('error', (e) => errors.push(e.message));
    env.socket().close();
    call.sendDigits('1');
    expect(errors).toEqual([
      'ConnectionError (31005): Could not send DTMF: Signaling channel is disconnected',
    ]);
  });

  it('is the same 31005 while signalling is down, even when the browser could send RFC 4733: nothing is sent or played', async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    const errors: string[] = [];
    call.on('error', (e) => errors.push(e.message));
    env.socket().close();
    call.sendDigits('1');
    expect(errors).toEqual([
      'ConnectionError (31005): Could not send DTMF: Signaling channel is disconnected',
    ]);
    await advance(env, 1_000, {}, 100);
    expect(env.pc().dtmf.inserted).toEqual([]);
    expect(env.pc().dtmf.played).toEqual([]);
  });

  it("refuses other characters: 'Illegal character passed into sendDigits'", async () => {
    const { call } = await openCall(fakeEnvironment());
    expect(() => call.sendDigits('12a')).toThrow('Illegal character passed into sendDigits');
  });
});
