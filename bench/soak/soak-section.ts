/**
 * The soak's figures as the "Soak" section of docs/reliability.md (between its markers, formatted
 * by Prettier as the rest of the docs are), or as text to print.
 */
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { readFileSync, writeFileSync } from 'node:fs';
import { writeSection } from '../lib/report';
import { quantile, round } from '../lib/stats';
import type { AgentCallReport, LoadSample } from './soak-agents';
import { slope, type PostedLead } from './soak-figures';
import type { HostSample, StoredCall, Verification } from './soak-host';

const FILE = fileURLToPath(new URL('../../docs/reliability.md', import.meta.url));

/** Everything a soak run measured. */
export interface SoakRun {
  startedAt: Date;
  loadAtStart: number[];
  loadAtEnd: number[];
  wallMs: number;
  machine: { cores: number; cpu: string; memoryGb: number; pinned: boolean };
  settings: {
    minutes: number;
    agents: number;
    targetCalls: number;
    talkMinS: number;
    talkMaxS: number;
    intervalMs: number;
    sampleS: number;
    warmupMinutes: number;
  };
  /** When the product said it was ready (epoch ms): its samples' `atMs` count from there. */
  hostReadyEpoch: number;
  /** When posting started and stopped, on the product's sample clock (ms since it was ready). */
  postingStartMs: number;
  postingEndMs: number;
  posted: PostedLead[];
  /** Every invite an agent handled. */
  reports: AgentCallReport[];
  /** The report of the agent who took each call, by call id. */
  firstReports: Map<number, AgentCallReport>;
  /** The account's calls, by id, as the database held them after the drain. */
  stored: Map<number, StoredCall>;
  agentsAfter: Verification['agents'];
  /** Each lost lead and why. */
  lost: string[];
  hostSamples: HostSample[];
  loadSamples: LoadSample[];
  productWarnings: string[];
}

const f = (value: number, digits = 1): string =>
  Number.isFinite(value) ? String(round(value, digits)) : '–';
const triple = (values: number[]): string =>
  values.length === 0
    ? '–'
    : `${f(quantile(values, 0.5))} / ${f(quantile(values, 0.99))} / ${f(Math.max(...values))}`;

/** Builds the section; writes it into docs/reliability.md when `write`. Returns the markdown. */
export async function writeSoakSection(run: SoakRun, write: boolean): Promise<string> {
  const markdown = soakMarkdown(run);
  if (!write) return markdown;
  writeSection('soak', markdown, FILE);
  const text = readFileSync(FILE, 'utf8');
  const options = (await resolveConfig(FILE)) ?? {};
  writeFileSync(FILE, await format(text, { ...options, filepath: FILE }));
  console.log('wrote the Soak section of docs/reliability.md');
  return markdown;
}

function soakMarkdown(run: SoakRun): string {
  const { settings: s, machine: m } = run;
  const minute = 60_000;
  const warmEndMs = run.postingStartMs + s.warmupMinutes * minute;
  const steady = run.hostSamples.filter((x) => x.atMs >= warmEndMs && x.atMs <= run.postingEndMs);
  const fit = (pick: (x: HostSample) => number): number =>
    slope(steady.map((x) => ({ x: x.atMs / minute, y: pick(x) })));
  const rssSlope = fit((x) => x.rssMb);
  const heapSlope = fit((x) => x.heapUsedMb);
  const afterDrain = run.hostSamples.at(-1);
  const atWarm = run.hostSamples.find((x) => x.atMs >= warmEndMs) ?? afterDrain;
  const atEnd = [...run.hostSamples].reverse().find((x) => x.atMs <= run.postingEndMs);
  const first = run.hostSamples[0];
  const mb = (x: HostSample | undefined, pick: (x: HostSample) => number | null): string =>
    x ? f(pick(x) ?? NaN, 0) : '–';
  const three = (pick: (x: HostSample) => number | null): string =>
    `${mb(atWarm, pick)} / ${mb(atEnd, pick)} / ${mb(afterDrain, pick)}`;

  const leads = run.posted.filter((l) => l.callId !== undefined);
  const statuses = new Map<string, number>();
  for (const lead of run.posted) {
    const key = lead.callStatus ?? `HTTP ${lead.httpStatus}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  const ours = leads.map((l) => run.stored.get(l.callId!)).filter((c) => c !== undefined);
  const offered = leads.filter((l) => run.firstReports.has(l.callId!));
  const latency = (status: string): number[] =>
    leads
      .filter((l) => l.callStatus === status && run.firstReports.has(l.callId!))
      .map((l) => run.firstReports.get(l.callId!)!.inviteAt - l.sentAt);
  const routed = latency('ringing');
  const waited = latency('queued');
  const taken = [...run.firstReports.values()].filter((r) => !r.error);
  const acceptMs = taken.flatMap((r) => (r.acceptMs === undefined ? [] : [r.acceptMs]));
  const talkS = taken.flatMap((r) => (r.talkMs === undefined ? [] : [r.talkMs / 1000]));
  const heard = taken.filter((r) => r.heardLead).length;
  const byServer = taken.filter((r) => r.endedBy === 'server').length;
  const answered = ours.filter((c) => c.answered && c.accepted > 0).length;
  const ended = ours.filter((c) => c.ended && c.status === 'completed').length;
  const dispositions = ours.filter((c) => c.disposition !== null).length;
  const noted = ours.filter((c) => c.notes > 0).length;
  const notes = ours.reduce((sum, c) => sum + c.notes, 0);
  const calls = ours.length;

  // Calls up at a sample: agents with their media up and not yet hung up, from their reports.
  const spans = run.reports.flatMap((r) => {
    if (r.acceptMs === undefined || r.talkMs === undefined) return [];
    const from = r.inviteAt + r.acceptMs - run.hostReadyEpoch;
    return [{ from, to: from + r.talkMs }];
  });
  const upAt = (atMs: number): number => spans.filter((c) => c.from <= atMs && atMs < c.to).length;
  const upSteady = steady.map((x) => upAt(x.atMs));
  const posting = run.hostSamples.filter(
    (x) => x.atMs >= run.postingStartMs && x.atMs <= run.postingEndMs,
  );
  const worst = (pick: (x: HostSample) => number): number => Math.max(0, ...posting.map(pick));
  const total = (pick: (x: HostSample) => number): number =>
    run.hostSamples.reduce((sum, x) => sum + pick(x), 0);
  const framesRun = total((x) => x.media.framesRun);
  const framesSkipped = total((x) => x.media.framesSkipped);

  const rows: string[] = [];
  let nextRowMs = Number.NEGATIVE_INFINITY;
  for (const x of run.hostSamples) {
    const last = x === afterDrain;
    if (x.atMs < run.postingStartMs || (x.atMs < nextRowMs && !last)) continue;
    nextRowMs = x.atMs + minute - (s.sampleS * 1000) / 2;
    const phase =
      x.atMs < warmEndMs
        ? 'warm-up'
        : x.atMs <= run.postingEndMs
          ? 'steady'
          : last
            ? 'drained'
            : 'draining';
    rows.push(
      `| ${f((x.atMs - run.postingStartMs) / minute)} | ${phase} | ${upAt(x.atMs)} | ${f(x.rssMb, 0)} | ${f(x.heapUsedMb, 0)} | ${f(x.eld.p50)} / ${f(x.eld.p99)} / ${f(x.eld.max, 0)} | ${x.media.framesSkipped} | ${f(x.media.startLateP99)} / ${f(x.media.startLateMax, 0)} |`,
    );
  }
  const loadRss = run.loadSamples.map((x) => x.rssMb);
  const statusText = [...statuses].map(([k, n]) => `${n} ${k}`).join(', ');
  const load = (l: number[]): string => l.map((v) => f(v, 2)).join(' / ');
  const busy = run.loadAtStart[0]! > 0.5;
  const defaults = s.minutes === 10 && s.agents === 100 && s.targetCalls === 20;
  const command = defaults
    ? 'npm run soak'
    : `SOAK_MINUTES=${s.minutes} SOAK_AGENTS=${s.agents} SOAK_CALLS=${s.targetCalls} npm run soak`;
  const lostText =
    run.lost.length === 0
      ? ''
      : `\n**Lost leads** (${run.lost.length}):\n\n${run.lost
          .slice(0, 20)
          .map((l) => `- ${l}`)
          .join('\n')}\n`;
  const warnings =
    run.productWarnings.length === 0
      ? 'none'
      : `${run.productWarnings.length} (first: ${run.productWarnings[0]})`;

  return `### Latest run: ${s.agents} agents, about ${s.targetCalls} calls up for ${s.minutes} minute${s.minutes === 1 ? '' : 's'}

Measured ${run.startedAt.toISOString().slice(0, 10)} with \`${command}\` on ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, Node ${process.version}; the product on core 0, the agents on core 1${m.pinned ? '' : ' (not pinned: `taskset` missing)'}. A lead every ${f(s.intervalMs / 1000, 2)} s, talk ${s.talkMinS}–${s.talkMaxS} s; samples every ${s.sampleS} s; warm-up ${f(s.warmupMinutes, 2)} min. The run took ${f(run.wallMs / minute)} min. Load average (1 / 5 / 15 min) ${load(run.loadAtStart)} at the start, ${load(run.loadAtEnd)} at the end${busy ? ': the machine was not idle when the run began, so delays and late frames are higher than on an idle machine' : ''}.

| Figure | Value |
|---|---|
| Leads posted | ${run.posted.length} (POST answered: ${statusText}) |
| Calls offered (an agent got the \`invite\`) | ${offered.length} |
| Answered | ${answered} |
| Ended | ${ended} (${taken.length - byServer} hung up by the agent, ${byServer} by the server) |
| **Lost** | **${run.lost.length}** |
| Dispositions stored | ${dispositions} of ${calls} calls |
| Notes stored | ${noted} of ${calls} calls (${notes} notes) |
| Agents who heard the lead (440 Hz) | ${heard} of ${taken.length} |
| Routing, POST → the agent's \`invite\`, p50 / p99 / max (ms) | ${triple(routed)} (${routed.length} leads offered at once) |
| Queue wait, POST → \`invite\` of the leads answered \`queued\`, p50 / p99 / max (ms) | ${triple(waited)} (${waited.length} leads) |
| \`invite\` → the agent's media up, p50 / p99 / max (ms) | ${triple(acceptMs)} |
| Talk time p50 / max (s) | ${f(quantile(talkS, 0.5))} / ${f(Math.max(0, ...talkS))} |
| Calls up after the warm-up (at the samples), mean / max | ${f(upSteady.reduce((a, b) => a + b, 0) / Math.max(1, upSteady.length))} / ${Math.max(0, ...upSteady)} |
| Product RSS: warm-up end / posting end / after the drain (MB) | ${three((x) => x.rssMb)} |
| **RSS slope after the warm-up** (least squares over ${steady.length} samples) | **${f(rssSlope, 2)} MB/min** |
| Main thread heap used: warm-up end / posting end / after the drain (MB); slope | ${three((x) => x.heapUsedMb)}; ${f(heapSlope, 2)} MB/min |
| PGlite's WebAssembly memory: first sample / after the drain (MB) | ${mb(first, (x) => x.pgliteMb)} / ${mb(afterDrain, (x) => x.pgliteMb)} |
| Event-loop delay of the product's main thread while posting: worst ${s.sampleS} s window p99 / max (ms) | ${f(worst((x) => x.eld.p99))} / ${f(
    worst((x) => x.eld.max),
    0,
  )} |
| Media workers' 20 ms ticks run / **late** (skipped: over 2 ticks behind, their audio dropped) | ${framesRun} / **${framesSkipped}** |
| Media tick start late, worst window p99 / max (ms); mixed and sent late | ${f(worst((x) => x.media.startLateP99))} / ${f(
    worst((x) => x.media.startLateMax),
    0,
  )}; ${f(worst((x) => x.media.endLateP99))} / ${f(
    worst((x) => x.media.endLateMax),
    0,
  )} |
| Agents after the drain: wrapping up / on a call / ringing / offline | ${run.agentsAfter.wrappingUp} / ${run.agentsAfter.onCall} / ${run.agentsAfter.ringing} / ${run.agentsAfter.offline} |
| Product warnings logged | ${warnings} |
| Agents' process: RSS first / last sample (MB); worst event-loop delay p99 / max (ms) | ${f(loadRss[0] ?? NaN, 0)} / ${f(loadRss.at(-1) ?? NaN, 0)}; ${f(Math.max(0, ...run.loadSamples.map((x) => x.eld.p99)))} / ${f(Math.max(0, ...run.loadSamples.map((x) => x.eld.max)), 0)} |
${lostText}
Over time, one sample a minute (minute 0: the first lead; *calls up*: agents with their media up who had not hung up; the event-loop delay, skipped ticks and tick lateness are those of the ${s.sampleS} s before the sample, the worst media worker's):

| Minute | Phase | Calls up | RSS (MB) | Heap used (MB) | Event-loop delay p50 / p99 / max (ms) | Ticks skipped | Tick start late p99 / max (ms) |
|---:|---|---:|---:|---:|---|---:|---|
${rows.join('\n')}
`;
}
