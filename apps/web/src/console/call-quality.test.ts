import { describe, expect, it } from 'vitest';
import {
  QUALITY_NOTICE_OF,
  qualityNoticeKind,
  qualityNotices,
  qualityWarningLogLine,
  type QualityNoticeInput,
} from './call-quality';

const POOR_CONNECTION = 'Poor connection: audio may break up';
const NO_MICROPHONE_SOUND = 'No sound from your microphone';
const NOT_GETTING_THROUGH = 'Your voice is not getting through';

/**
 * What the agent reads for each warning both SDKs raise (spec section 9's thresholds; the words
 * of issue 35 item 5), written out here rather than read from the code's table.
 */
const WORDS = [
  ['high-jitter', POOR_CONNECTION],
  ['high-rtt', POOR_CONNECTION],
  ['low-mos', POOR_CONNECTION],
  ['high-packet-loss', POOR_CONNECTION],
  ['high-packets-lost-fraction', POOR_CONNECTION],
  ['low-bytes-received', POOR_CONNECTION],
  ['ice-connectivity-lost', POOR_CONNECTION],
  ['constant-audio-input-level', NO_MICROPHONE_SOUND],
  ['low-bytes-sent', NOT_GETTING_THROUGH],
] as const;

const standing = (
  qualityWarnings: string[],
  rest: Partial<QualityNoticeInput> = {},
): QualityNoticeInput => ({ qualityWarnings, muted: false, reconnectingSinceMs: null, ...rest });

const texts = (input: QualityNoticeInput) => qualityNotices(input).map((notice) => notice.text);

describe('call quality warnings in plain words', () => {
  it.each(WORDS)('%s says "%s"', (name, words) => {
    expect(texts(standing([name]))).toEqual([words]);
  });

  it('knows every warning both SDKs raise, and only those', () => {
    expect(Object.keys(QUALITY_NOTICE_OF).sort()).toEqual(WORDS.map(([name]) => name).sort());
  });

  it('a warning it does not know shows nothing (it is still logged)', () => {
    for (const name of ['constant-audio-output-level', 'toString', 'constructor', '']) {
      expect(qualityNoticeKind(name), name).toBeNull();
    }
    expect(texts(standing(['some-future-warning']))).toEqual([]);
    expect(qualityWarningLogLine('some-future-warning', 'raised')).toBe(
      'call quality warning raised: some-future-warning',
    );
  });
});

describe('the notices a call shows', () => {
  it('none without warnings', () => {
    expect(qualityNotices(standing([]))).toEqual([]);
  });

  it('one per kind however many warnings of it stand, in the order first raised', () => {
    const input = standing([
      'constant-audio-input-level',
      'high-jitter',
      'low-mos',
      'high-packet-loss',
      'low-bytes-sent',
    ]);
    expect(qualityNotices(input)).toEqual([
      { kind: 'microphone', text: NO_MICROPHONE_SOUND },
      { kind: 'connection', text: POOR_CONNECTION },
      { kind: 'sending', text: NOT_GETTING_THROUGH },
    ]);
  });

  it("while muted the microphone's silence is no news; the others still show", () => {
    const input = standing(['constant-audio-input-level', 'high-rtt'], { muted: true });
    expect(texts(input)).toEqual([POOR_CONNECTION]);
  });

  it("while reconnecting the banner says it: no network or sending notice; the microphone's shows", () => {
    const input = standing(
      ['ice-connectivity-lost', 'low-bytes-sent', 'constant-audio-input-level'],
      {
        reconnectingSinceMs: 1_000,
      },
    );
    expect(texts(input)).toEqual([NO_MICROPHONE_SOUND]);
  });
});

describe('the error log lines', () => {
  it('a raised stats warning: its name, its words, the threshold and the values (2 decimals)', () => {
    expect(
      qualityWarningLogLine('low-mos', 'raised', {
        threshold: { name: 'min', value: 3 },
        values: [4.4, 2.91234, 2.5],
      }),
    ).toBe(
      'call quality warning raised: low-mos, "Poor connection: audio may break up" (min 3; values 4.4, 2.91, 2.5)',
    );
  });

  it("the official SDK's microphone warning: its one value", () => {
    expect(
      qualityWarningLogLine('constant-audio-input-level', 'raised', {
        threshold: { name: 'minStandardDeviation', value: 327.67 },
        value: 12.345,
      }),
    ).toBe(
      'call quality warning raised: constant-audio-input-level, "No sound from your microphone" (minStandardDeviation 327.67; value 12.35)',
    );
  });

  it('a warning without data (null or none), and a cleared one: the name (and words) only', () => {
    expect(qualityWarningLogLine('ice-connectivity-lost', 'raised', null)).toBe(
      'call quality warning raised: ice-connectivity-lost, "Poor connection: audio may break up"',
    );
    expect(qualityWarningLogLine('ice-connectivity-lost', 'raised')).toBe(
      'call quality warning raised: ice-connectivity-lost, "Poor connection: audio may break up"',
    );
    expect(qualityWarningLogLine('low-bytes-sent', 'cleared')).toBe(
      'call quality warning cleared: low-bytes-sent',
    );
  });
});
