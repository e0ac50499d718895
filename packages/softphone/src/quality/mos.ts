/**
 * Mean opinion score (1 to about 4.5) from round-trip time, jitter and packet loss by the
 * simplified ITU-T G.107 E-model the official Voice SDK uses: an R factor from the effective
 * latency (rtt + 2 × jitter + 10 ms), lowered by 2.5 per percent of packets lost, mapped to MOS.
 */

/** R factor of a perfect narrow-band call. */
const R0 = 94.768;

/**
 * The MOS of one sample; null when an input is missing or not a finite non-negative number.
 * @param rttMs - round-trip time (ms)
 * @param jitterMs - jitter (ms)
 * @param lossPercent - packets lost in the sample, as a percentage of the inbound packets
 */
export function computeMos(
  rttMs: number | null | undefined,
  jitterMs: number | null | undefined,
  lossPercent: number | null | undefined,
): number | null {
  const inputs = [rttMs, jitterMs, lossPercent];
  if (!inputs.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) return null;
  const latency = rttMs! + jitterMs! * 2 + 10;
  let r = latency < 160 ? R0 - latency / 40 : latency < 1000 ? R0 - (latency - 120) / 10 : 0;
  r = lossPercent! <= r / 2.5 ? Math.max(r - lossPercent! * 2.5, 6.52) : 0;
  return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r);
}
