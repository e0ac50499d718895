/**
 * Where a thread's CPU time went, from a V8 CPU profile: self time per area (the database's
 * WebAssembly and JS, Fastify, our server code, JSON, garbage collection, …) and per function,
 * as shares of the busy (non-idle) time.
 */
export interface Profile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The area a frame belongs to, from its script URL and name. */
export function areaOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native (outside JS)';
  if (url.includes('@electric-sql/pglite')) return 'PGlite (Postgres in WebAssembly, and its JS)';
  if (url.startsWith('wasm://')) return 'PGlite (Postgres in WebAssembly, and its JS)';
  if (url.includes('drizzle-orm')) return 'Drizzle (query building, result mapping)';
  if (
    /node_modules\/(fastify|@fastify|avvio|find-my-way|light-my-request|fast-json-stringify|pino)/.test(
      url,
    )
  )
    return 'Fastify (routing, hooks, serialisation, logging)';
  if (url.includes('node_modules/zod')) return 'zod (validation)';
  if (url.includes('apps/server/')) return 'Leadline server code';
  if (url.includes('packages/')) return 'Leadline packages';
  if (url.startsWith('node:') || url === '') {
    if (functionName === 'stringify' || functionName === 'parse') return 'JSON';
    return url === '' ? 'V8 builtins and native' : 'Node core (HTTP, streams, timers)';
  }
  if (url.includes('node_modules/'))
    return `other libraries (${url.split('node_modules/').pop()!.split('/')[0]})`;
  return 'other';
}

export function summariseByArea(profile: Profile): {
  busyMs: number;
  windowMs: number;
  areas: Array<{ area: string; share: number }>;
  functions: Array<{ name: string; share: number }>;
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areaTime = new Map<string, number>();
  const fnTime = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const { functionName, url, lineNumber } = node.callFrame;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (functionName === '(idle)') continue;
    busy += dt;
    const area = areaOf(functionName, url);
    areaTime.set(area, (areaTime.get(area) ?? 0) + dt);
    const fn = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber}`;
    fnTime.set(fn, (fnTime.get(fn) ?? 0) + dt);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    busyMs: busy / 1000,
    windowMs: (profile.endTime - profile.startTime) / 1000,
    areas: sorted(areaTime).map(([area, t]) => ({ area, share: t / busy })),
    functions: sorted(fnTime).map(([name, t]) => ({ name, share: t / busy })),
  };
}
