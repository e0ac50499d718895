/**
 * Reads what the call quality monitor needs from an `RTCStatsReport` (the audio inbound and
 * outbound RTP streams, the round-trip time and the codec), in the units of the spec's
 * thresholds (ms).
 */

/** One reading of a call's counters (totals since the call started). */
export interface RtcStats {
  /** The report's timestamp (ms). */
  timestamp: number;
  bytesSent: number;
  bytesReceived: number;
  packetsSent: number;
  packetsReceived: number;
  packetsLost: number;
  /** Inbound jitter (ms). */
  jitter: number;
  /** Round-trip time (ms), when known. */
  rtt: number | null;
  /** The codec in use (`pcmu`, `opus`), when known. */
  codecName: string | null;
  /**
   * When the last audio packet arrived, on the report's clock (inbound-rtp
   * `lastPacketReceivedTimestamp`), when the browser tells.
   */
  lastPacketReceivedAt: number | null;
}

type Stat = Record<string, unknown> & { type: string; id: string };

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const optNum = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

/** Reads a report. */
export function readRtcStats(report: RTCStatsReport): RtcStats {
  const stats = new Map<string, Stat>();
  report.forEach((stat: Stat) => stats.set(stat.id, stat));
  const out: RtcStats = {
    timestamp: 0,
    bytesSent: 0,
    bytesReceived: 0,
    packetsSent: 0,
    packetsReceived: 0,
    packetsLost: 0,
    jitter: 0,
    rtt: null,
    codecName: null,
    lastPacketReceivedAt: null,
  };
  let codecId: unknown;
  let pairId: unknown;
  for (const stat of stats.values()) {
    out.timestamp ||= num(stat.timestamp);
    if (stat.kind !== undefined && stat.kind !== 'audio') continue;
    switch (stat.type) {
      case 'inbound-rtp':
        out.bytesReceived = num(stat.bytesReceived);
        out.packetsReceived = num(stat.packetsReceived);
        out.packetsLost = num(stat.packetsLost);
        out.jitter = num(stat.jitter) * 1000;
        out.lastPacketReceivedAt = optNum(stat.lastPacketReceivedTimestamp);
        codecId ??= stat.codecId;
        break;
      case 'outbound-rtp':
        out.bytesSent = num(stat.bytesSent);
        out.packetsSent = num(stat.packetsSent);
        codecId = stat.codecId ?? codecId;
        break;
      case 'remote-inbound-rtp':
        out.rtt = optNum(stat.roundTripTime) === null ? out.rtt : num(stat.roundTripTime) * 1000;
        break;
      case 'transport':
        pairId = stat.selectedCandidatePairId;
        break;
    }
  }
  const pairRtt = optNum(stats.get(pairId as string)?.currentRoundTripTime);
  if (out.rtt === null && pairRtt !== null) out.rtt = pairRtt * 1000;
  const mime = stats.get(codecId as string)?.mimeType;
  if (typeof mime === 'string') out.codecName = mime.split('/').pop()!.toLowerCase();
  return out;
}
