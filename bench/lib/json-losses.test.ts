import { describe, expect, it } from 'vitest';
import { jsonLosses } from './json-losses';

describe('jsonLosses', () => {
  it('finds nothing in what JSON gives back as it is', () => {
    const value = {
      a: 1,
      b: [0.5, 'x', null, true],
      c: { d: -3, e: [] },
      f: Object.create(null) as object,
    };
    expect(jsonLosses(value)).toEqual([]);
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  });

  it.each([
    ['NaN', { p99: Number.NaN }, 'data.p99 (NaN)'],
    ['Infinity', [1, -Infinity], 'data[1] (-Infinity)'],
    ['an undefined property', { missedBy: undefined }, 'data.missedBy (undefined)'],
    ['undefined in an array', [undefined], 'data[0] (undefined)'],
    ['a Date', { at: new Date(0) }, 'data.at (Date)'],
    ['a Map', { byId: new Map() }, 'data.byId (Map)'],
    ['a function', { f: () => 1 }, 'data.f (function)'],
  ])('names %s by its path', (_, value, path) => {
    expect(jsonLosses(value)).toEqual([path]);
  });
});
