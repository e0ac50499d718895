/**
 * What JSON would not keep of a value: a section's data is stored as JSON and rendered from what
 * was stored, so anything JSON changes on the way (NaN and Infinity become null, undefined
 * properties vanish, a Date becomes a string, a Map an empty object) would render differently
 * from the figures the benchmark held in memory. Benchmarks convert such values themselves (to
 * null or a string); this names the ones they missed.
 */

/**
 * The paths (`data.rows[2].p99`) of the values in `value` that a JSON round trip would not give
 * back as they are; empty when it would.
 */
export function jsonLosses(value: unknown, path = 'data'): string[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} (${value})`];
  if (Array.isArray(value)) return value.flatMap((item, i) => jsonLosses(item, `${path}[${i}]`));
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
      return [`${path} (${value.constructor?.name ?? 'an object with a prototype'})`];
    }
    return Object.entries(value).flatMap(([key, item]) => jsonLosses(item, `${path}.${key}`));
  }
  // undefined, functions, symbols, bigints.
  return [`${path} (${typeof value})`];
}
