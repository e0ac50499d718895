import { describe, expect, it } from 'vitest';
import type { PhoneCallSample } from '../phone/phone-port';
import { summarizeSamples } from './network-report';

/** One second of a call: a clean LAN second unless `figures` say otherwise. */
const second = (figures: Partial<PhoneCallSample> = {}): PhoneCallSample => ({
  timestamp: 0,
  mos: 4.4,
  jitter: 2,
  rtt: 20,
  packetsLost: 0,
  packetsReceived: 50,
  packetsLostFraction: 0,
  bytesSent: 8600,
  bytesReceived: 8600,
  ...figures,
});

describe('the network test report', () => {
  it('grades the average MOS and keeps the lowest; averages jitter and round-trip time', () => {
    const report = summarizeSamples([
      second({ mos: null, jitter: 9, rtt: null }),
      second({ mos: 4.3, jitter: 3, rtt: 30 }),
      second({ mos: 4.0, jitter: 6, rtt: 50 }),
    ]);
    expect(report).toEqual({
      grade: 'Great',
      mos: { average: 4.15, min: 4.0 },
      jitterMs: 6,
      packetLossPercent: 0,
      rttMs: 40,
      samples: 3,
    });
  });

  it.each([
    // [MOS of each second, grade]: the grade is the average's, on the boundaries.
    [[4.2, 4.2], 'Great'], // 4.2 is Great, not Excellent
    [[4.3, 4.15], 'Excellent'],
    [[4.1, 4.1], 'Good'],
    [[3.7, 3.7], 'Fair'],
    [[3.1, 3.1], 'Degraded'],
    [[4.4, 2.0], 'Fair'], // one bad second pulls the average down (3.2)
  ])('seconds of MOS %j grade %s', (scores, grade) => {
    const report = summarizeSamples(scores.map((mos) => second({ mos })));
    expect(report?.grade).toBe(grade);
  });

  it('counts packet loss over the whole test, not as an average of each second', () => {
    const report = summarizeSamples([
      second({ packetsLost: 0, packetsReceived: 50 }),
      second({ packetsLost: 10, packetsReceived: 40 }),
      second({ packetsLost: 0, packetsReceived: 0 }),
    ]);
    expect(report?.packetLossPercent).toBe(10);
  });

  it('has no round-trip time when the browser measured none', () => {
    expect(summarizeSamples([second({ rtt: null }), second({ rtt: undefined })])?.rttMs).toBe(null);
  });

  it.each([
    ['no samples', []],
    ['no sample with a MOS', [second({ mos: null }), second({ mos: null })]],
    [
      'no audio arrived (a MOS of nothing would look perfect)',
      [second({ packetsReceived: 0 }), second({ packetsReceived: 0 })],
    ],
  ])('has no report with %s', (_name, samples) => {
    expect(summarizeSamples(samples)).toBeNull();
  });
});
