/** The shape comparison the contract test reports drift with: what it names, what it lets pass. */
import { describe, expect, it } from 'vitest';
import { shapeDifferences } from './shape-diff';

const diff = (server: unknown, fake: unknown) =>
  shapeDifferences({
    expected: { name: "the server's answer", value: server },
    actual: { name: "the fake's answer", value: fake },
  });

describe('shapeDifferences', () => {
  it('lets values differ, and null stand for a string, number or boolean', () => {
    expect(
      diff(
        { id: 1, name: 'Alex', picture: null, on: true, tags: [{ key: 'hot' }] },
        { id: 7, name: 'Dana', picture: '/p.png', on: false, tags: [{ key: 'cold' }] },
      ),
    ).toEqual([]);
  });

  it('names a field one side lacks, at any depth', () => {
    expect(diff({ call: { id: 1, profile: { tags: [] } } }, { call: { id: 1 }, extra: 1 })).toEqual(
      [
        "call.profile: in the server's answer, missing from the fake's answer",
        "extra: in the fake's answer, not in the server's answer",
      ],
    );
  });

  it('names a field of another JSON type, inside list items too', () => {
    expect(diff({ data: [{ id: 1 }, { id: 2 }] }, { data: [{ id: '1' }] })).toEqual([
      "data[].id: number in the server's answer, string in the fake's answer",
    ]);
  });

  it('reports what cannot be compared: null against an object, an empty list against items', () => {
    expect(diff({ profile: { id: 1 }, tags: [{ id: 1 }] }, { profile: null, tags: [] })).toEqual([
      "profile: object in the server's answer but null in the fake's answer, so what is inside cannot be compared: give both sides a value there",
      "tags: a list with items in the server's answer but empty in the fake's answer, so the items cannot be compared: give both sides an item",
    ]);
  });

  it('merges list items: a key any item has counts', () => {
    expect(
      diff({ data: [{ id: 1 }, { id: 2, error: 'x' }] }, { data: [{ id: 3, error: 'y' }] }),
    ).toEqual([]);
    expect(diff({ data: [{ id: 1 }, { id: 2, error: 'x' }] }, { data: [{ id: 3 }] })).toEqual([
      "data[].error: in the server's answer, missing from the fake's answer",
    ]);
  });

  it('compares answers with no body', () => {
    expect(diff(undefined, undefined)).toEqual([]);
    expect(diff(undefined, { success: true })).toEqual([
      "the answer: absent in the server's answer, object in the fake's answer",
    ]);
  });
});
