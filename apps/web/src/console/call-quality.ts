/**
 * Call quality as the agent sees it (spec section 9's warnings; issue 35 item 5): the notice
 * each of the softphone's quality warnings gives, in plain words; the notices a call shows
 * while warnings stand (one per kind, however many warnings of that kind stand); and the error
 * log's lines for a warning raised and cleared.
 */
import { CALL_QUALITY_NOTICE_TEXT } from '../constants';
import type { PhoneCallWarningData, PhoneCallWarningName } from '../phone/phone-port';

/** A kind of call quality notice; its words are {@link CALL_QUALITY_NOTICE_TEXT}'s. */
export type QualityNoticeKind = keyof typeof CALL_QUALITY_NOTICE_TEXT;

/**
 * The notice of each warning. The network's warnings all mean the agent and the lead may hear
 * each other badly; `low-bytes-received` (no audio arriving) and `ice-connectivity-lost` too: the
 * SDKs reconnect the media for them. The microphone's level standing still means no sound from
 * it (the SDKs do not raise it while muted). `low-bytes-sent` means nothing goes out at all.
 */
export const QUALITY_NOTICE_OF: Readonly<Record<PhoneCallWarningName, QualityNoticeKind>> = {
  'high-jitter': 'connection',
  'high-rtt': 'connection',
  'low-mos': 'connection',
  'high-packet-loss': 'connection',
  'high-packets-lost-fraction': 'connection',
  'low-bytes-received': 'connection',
  'ice-connectivity-lost': 'connection',
  'constant-audio-input-level': 'microphone',
  'low-bytes-sent': 'sending',
};

/** The notice kind of warning `name`; null for a name this console does not know (logged only). */
export function qualityNoticeKind(name: string): QualityNoticeKind | null {
  return Object.hasOwn(QUALITY_NOTICE_OF, name)
    ? QUALITY_NOTICE_OF[name as PhoneCallWarningName]
    : null;
}

/** One notice the on-call view shows. */
export interface QualityNotice {
  readonly kind: QualityNoticeKind;
  readonly text: string;
}

/** What decides the notices shown: the console state's part of it. */
export interface QualityNoticeInput {
  /** The warnings standing, in the order raised. */
  readonly qualityWarnings: readonly string[];
  readonly muted: boolean;
  /** Since when the call is reconnecting, or null. */
  readonly reconnectingSinceMs: number | null;
}

/**
 * The notices for the warnings standing: one per kind, in the order their first warning was
 * raised. Left out: the microphone's while the agent muted it (silence is what they asked for),
 * and the network's and sending's while the call is reconnecting (the Reconnecting banner says
 * so already).
 */
export function qualityNotices(input: QualityNoticeInput): QualityNotice[] {
  const kinds = new Set<QualityNoticeKind>();
  for (const name of input.qualityWarnings) {
    const kind = qualityNoticeKind(name);
    if (kind) kinds.add(kind);
  }
  if (input.muted) kinds.delete('microphone');
  if (input.reconnectingSinceMs !== null) {
    kinds.delete('connection');
    kinds.delete('sending');
  }
  return [...kinds].map((kind) => ({ kind, text: CALL_QUALITY_NOTICE_TEXT[kind] }));
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The error log's line for warning `name` raised (with what decided it, when the SDK said) or
 * cleared, e.g. `call quality warning raised: high-jitter, "Poor connection: audio may break
 * up" (max 30; values 35, 41.5, 52)`.
 */
export function qualityWarningLogLine(
  name: string,
  change: 'raised' | 'cleared',
  data?: PhoneCallWarningData | null,
): string {
  const kind = qualityNoticeKind(name);
  const said = kind && change === 'raised' ? `, "${CALL_QUALITY_NOTICE_TEXT[kind]}"` : '';
  const details: string[] = [];
  if (data?.threshold) details.push(`${data.threshold.name} ${round(data.threshold.value)}`);
  if (data?.values?.length) details.push(`values ${data.values.map(round).join(', ')}`);
  if (typeof data?.value === 'number') details.push(`value ${round(data.value)}`);
  const detail = change === 'raised' && details.length ? ` (${details.join('; ')})` : '';
  return `call quality warning ${change}: ${name}${said}${detail}`;
}
