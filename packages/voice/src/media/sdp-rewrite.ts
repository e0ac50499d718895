import { TELEPHONE_EVENT_CLOCK_RATE_HZ } from '../constants';

const TELEPHONE_EVENT_RTPMAP = /^a=rtpmap:(\d+) telephone-event\/(\d+)/i;
const PAYLOAD_ATTRIBUTE = /^a=(?:rtpmap|fmtp|rtcp-fb):(\d+)[ \t]/;

/**
 * Removes every `telephone-event` codec whose clock rate is not 8000 Hz from the audio sections
 * of an SDP: its `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` lines and its payload type on the `m=` line.
 *
 * Why: Chrome offers `telephone-event/48000` before `telephone-event/8000`, and werift matches
 * codecs by name only, so it would pick the 48 kHz one and DTMF durations would come out about
 * six times too slow against our 8 kHz PCMU clock.
 */
export function stripWideTelephoneEvents(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const sections: string[][] = [[]];
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith('m=')) sections.push([]);
    sections[sections.length - 1]?.push(line);
  }
  return sections.map((section) => stripSection(section).join(eol)).join(eol);
}

function stripSection(lines: string[]): string[] {
  const mediaLine = lines[0];
  if (mediaLine === undefined || !mediaLine.startsWith('m=audio ')) return lines;
  const dropped = new Set<string>();
  for (const line of lines) {
    const match = TELEPHONE_EVENT_RTPMAP.exec(line);
    if (match?.[1] !== undefined && Number(match[2]) !== TELEPHONE_EVENT_CLOCK_RATE_HZ)
      dropped.add(match[1]);
  }
  if (dropped.size === 0) return lines;
  const [media, port, protocol, ...formats] = mediaLine.split(' ');
  const kept = lines.slice(1).filter((line) => {
    const payloadType = PAYLOAD_ATTRIBUTE.exec(line)?.[1];
    return payloadType === undefined || !dropped.has(payloadType);
  });
  return [
    [media, port, protocol, ...formats.filter((format) => !dropped.has(format))].join(' '),
    ...kept,
  ];
}
