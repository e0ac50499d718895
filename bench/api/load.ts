/**
 * The load generator of the API benchmark (`taskset -c 1 node --import tsx api/load.ts`):
 * autocannon at a fixed number of connections against one endpoint for a warm-up and then a
 * measured window, every response's own time kept (autocannon's histogram keeps whole
 * milliseconds, too coarse for a bare server's sub-millisecond answers). Input: one JSON line
 * in `LOAD` (`{url, paths, cookie, connections, warmupSeconds, seconds}`); output: one JSON
 * line with the latencies' p50/p90/p99/max (ms), requests per second, non-2xx and errors.
 */
import autocannon from 'autocannon';
import type { EventEmitter } from 'node:events';
import { cpuUsage } from 'node:process';
import { quantile } from '../lib/stats';

export interface LoadSpec {
  url: string;
  /** Request paths, taken in turn by each connection. */
  paths: string[];
  cookie?: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** This process's CPU share of one core during the measured window. */
  clientCpu: number;
}

const spec = JSON.parse(process.env.LOAD!) as LoadSpec;

async function blast(seconds: number, times?: number[]): Promise<autocannon.Result> {
  // Without a callback autocannon returns its instance, an event emitter that is also a promise
  // of the result (its types know only the promise).
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: seconds,
    headers: spec.cookie ? { cookie: spec.cookie } : {},
    requests: spec.paths.map((path) => ({ method: 'GET', path })),
  }) as unknown as EventEmitter & Promise<autocannon.Result>;
  if (times) {
    void instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) times.push(ms);
    });
  }
  return instance;
}

await blast(spec.warmupSeconds);
const times: number[] = [];
const cpuBefore = cpuUsage();
const started = performance.now();
const result = await blast(spec.seconds, times);
const wallMs = performance.now() - started;
const cpu = cpuUsage(cpuBefore);
const out: LoadResult = {
  requests: times.length,
  requestsPerSecond: (times.length * 1000) / wallMs,
  p50: quantile(times, 0.5),
  p90: quantile(times, 0.9),
  p99: quantile(times, 0.99),
  max: times.reduce((a, b) => Math.max(a, b), 0),
  non2xx: result.non2xx,
  errors: result.errors,
  clientCpu: (cpu.user + cpu.system) / 1000 / wallMs,
};
console.log(JSON.stringify(out));
