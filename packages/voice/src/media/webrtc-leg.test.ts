import type { RTCPeerConnection, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { encodeMuLaw } from '../codec/mu-law';
import { JITTER_SETTLE_FRAMES, PCMU_PAYLOAD_TYPE, SAMPLES_PER_FRAME } from '../constants';
import { FakeClock } from '../testing/fake-clock';
import { WebRtcLeg, type LegObserver } from './webrtc-leg';

/** μ-law silence. */
const SILENCE = 0xff;

/**
 * The PCMU payload of loud frame `n`: its first two bytes spell `n` (μ-law codes 0 to 63, all
 * louder than −40 dBFS), the rest repeat the first.
 */
function loudPayload(n: number): Uint8Array {
  const payload = new Uint8Array(SAMPLES_PER_FRAME).fill(n % 64);
  payload[1] = Math.floor(n / 64);
  return payload;
}

/**
 * A leg on a stand-in peer connection whose remote track delivers PCMU packets when told: frame
 * `n` (RTP timestamp `n × 160`) is loud and spells `n` if `loud(n)`, else silence. `tick` pulls
 * one frame as the mixer does and answers which frame it was (−1 silence, `undefined` nothing).
 */
function legReceiving(loud: (n: number) => boolean = () => true) {
  let deliver: ((packet: RtpPacket) => void) | undefined;
  const peer = {
    onTrack: {
      subscribe: (onTrack: (track: unknown) => void) =>
        onTrack({ onReceiveRtp: { subscribe: (receive: typeof deliver) => (deliver = receive) } }),
    },
    connectionStateChange: { subscribe: () => undefined },
  } as unknown as RTCPeerConnection;
  const clock = new FakeClock();
  const observer: LegObserver = {
    connected: () => undefined,
    failed: () => undefined,
    dtmf: () => undefined,
    warn: () => undefined,
  };
  const leg = new WebRtcLeg({ id: 'a', roomId: 'r', peer, observer, scheduler: clock, clock });
  let sent = 0;
  return {
    leg,
    send(frames: number): void {
      for (let i = 0; i < frames; i++, sent++) {
        const payload = loud(sent)
          ? loudPayload(sent)
          : new Uint8Array(SAMPLES_PER_FRAME).fill(SILENCE);
        const packet = {
          header: { payloadType: PCMU_PAYLOAD_TYPE, timestamp: sent * SAMPLES_PER_FRAME },
          payload: Buffer.from(payload),
        } as unknown as RtpPacket;
        deliver!(packet);
      }
    },
    tick(): number | undefined {
      const frame = leg.speak();
      if (frame === undefined) return undefined;
      const codes = encodeMuLaw(frame);
      return codes[0] === SILENCE ? -1 : codes[0]! + 64 * codes[1]!;
    },
  };
}

describe('WebRtcLeg incoming audio', () => {
  it('drops what it said in ticks the mixer skipped, so a stall adds no delay', () => {
    const call = legReceiving();
    const heard: Array<number | undefined> = [];
    call.send(1);
    for (let tick = 0; tick < 4; tick++) {
      call.send(1);
      heard.push(call.tick());
    }
    // The mixer stalls and skips three ticks; the packets sent meanwhile arrive after it.
    call.leg.skipFrames(3);
    call.send(3);
    for (let tick = 0; tick < 3; tick++) {
      call.send(1);
      heard.push(call.tick());
    }
    // Frames 4 to 6 were due in the skipped ticks: the next one plays on time.
    expect(heard).toEqual([0, 1, 2, 3, 7, 8, 9]);
  });

  it('sheds a burst of late packets in the silence after it, back to two frames of delay', () => {
    // Bursts of five loud frames, then fifteen of silence.
    const call = legReceiving((n) => n % 20 < 5);
    /** Per loud frame heard: how many frames were sent after it by then (1: the target depth). */
    const lag = new Map<number, number>();
    // Eight frames at once (a stalled network path released), then one per tick.
    call.send(8);
    let sent = 8;
    for (let tick = 0; tick < 4 * JITTER_SETTLE_FRAMES; tick++) {
      call.send(1);
      sent++;
      const n = call.tick();
      if (n !== undefined && n >= 0) lag.set(n, sent - 1 - n);
    }
    // Every loud frame was heard. The two bursts of the first settle window (25 frames) came
    // eight frames late; in the silence after it the excess went, and from then on one.
    const loud = Array.from({ length: 6 * 5 }, (_, i) => 20 * Math.floor(i / 5) + (i % 5));
    expect([...lag.keys()]).toEqual(loud.filter((n) => n < sent - 1));
    expect([...lag.values()]).toEqual([
      ...new Array<number>(10).fill(8),
      ...new Array<number>(20).fill(1),
    ]);
  });
});
