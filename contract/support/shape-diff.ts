/**
 * The shape of a JSON answer and where two answers' shapes differ: the same keys at every level
 * and the same JSON types, whatever the values. The contract test holds the fake server's
 * answers against the real server's with it, after both passed the same zod schema.
 *
 * Values are free to differ, and so is null against a string, number or boolean (a nullable
 * field is null in one scenario and set in another; the schema says whether null is allowed).
 * Null against an object or a list is reported: the fields below it could not be compared. The
 * items of a list are merged into one shape (a key any item has, the types any item has), and an
 * empty list against a full one is reported for the same reason.
 */

/** A JSON type, and `absent` for an answer with no JSON body. */
export type JsonKind = 'null' | 'string' | 'number' | 'boolean' | 'object' | 'array' | 'absent';

/** The shape of a value: its kinds, an object's fields, a list's merged items. */
export interface Shape {
  readonly kinds: ReadonlySet<JsonKind>;
  readonly fields: ReadonlyMap<string, Shape>;
  /** The merged shape of a list's items; null when no list seen had any. */
  readonly items: Shape | null;
}

/** The JSON kind of one value. */
export function kindOf(value: unknown): JsonKind {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const kind = typeof value;
  if (kind === 'string' || kind === 'number' || kind === 'boolean') return kind;
  if (kind === 'object') return 'object';
  throw new TypeError(`not a JSON value: ${kind}`);
}

/** The shape of `value`. */
export function shapeOf(value: unknown): Shape {
  const kind = kindOf(value);
  const fields = new Map<string, Shape>();
  let items: Shape | null = null;
  if (kind === 'object') {
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      fields.set(key, shapeOf(field));
    }
  } else if (kind === 'array') {
    for (const item of value as unknown[]) {
      const shape = shapeOf(item);
      items = items ? mergeShapes(items, shape) : shape;
    }
  }
  return { kinds: new Set([kind]), fields, items };
}

/** One shape covering both: every kind, every field and every item either has. */
export function mergeShapes(a: Shape, b: Shape): Shape {
  const fields = new Map(a.fields);
  for (const [key, shape] of b.fields) {
    const known = fields.get(key);
    fields.set(key, known ? mergeShapes(known, shape) : shape);
  }
  const items = a.items && b.items ? mergeShapes(a.items, b.items) : (a.items ?? b.items);
  return { kinds: new Set([...a.kinds, ...b.kinds]), fields, items };
}

/** The two answers compared, by whose they are (named in every difference). */
export interface ShapeSides {
  /** The answer held to be right (the real server's). */
  readonly expected: { readonly name: string; readonly value: unknown };
  /** The answer under test (the fake's). */
  readonly actual: { readonly name: string; readonly value: unknown };
}

/**
 * Where the two answers' shapes differ, one sentence per difference, each naming the field by
 * its path (`call.profile.tags[].key`; `the answer` for the whole body); empty when they agree.
 */
export function shapeDifferences(sides: ShapeSides): string[] {
  const out: string[] = [];
  compare(
    shapeOf(sides.expected.value),
    shapeOf(sides.actual.value),
    '',
    sides.expected.name,
    sides.actual.name,
    out,
  );
  return out;
}

const STRUCTURED: ReadonlySet<JsonKind> = new Set(['object', 'array']);

function describeKinds(kinds: ReadonlySet<JsonKind>): string {
  return [...kinds].sort().join(' or ');
}

function compare(
  expected: Shape,
  actual: Shape,
  path: string,
  expectedName: string,
  actualName: string,
  out: string[],
): void {
  const here = path || 'the answer';
  const expectedKinds = withoutNull(expected.kinds);
  const actualKinds = withoutNull(actual.kinds);
  if (expectedKinds.size > 0 && actualKinds.size > 0) {
    if (!sameSet(expectedKinds, actualKinds)) {
      out.push(
        `${here}: ${describeKinds(expectedKinds)} in ${expectedName}, ` +
          `${describeKinds(actualKinds)} in ${actualName}`,
      );
      return;
    }
  } else if (expectedKinds.size > 0 || actualKinds.size > 0) {
    // Null on one side only: a value difference, unless the other side has fields or items.
    const [only, name, other] =
      expectedKinds.size > 0
        ? [expectedKinds, expectedName, actualName]
        : [actualKinds, actualName, expectedName];
    if ([...only].some((kind) => STRUCTURED.has(kind))) {
      out.push(
        `${here}: ${describeKinds(only)} in ${name} but null in ${other}, so what is inside ` +
          'cannot be compared: give both sides a value there',
      );
    }
    return;
  }
  if (expectedKinds.has('object')) {
    const keys = new Set([...expected.fields.keys(), ...actual.fields.keys()]);
    for (const key of [...keys].sort()) {
      const inExpected = expected.fields.get(key);
      const inActual = actual.fields.get(key);
      const at = path ? `${path}.${key}` : key;
      if (inExpected && inActual) compare(inExpected, inActual, at, expectedName, actualName, out);
      else if (inExpected) out.push(`${at}: in ${expectedName}, missing from ${actualName}`);
      else out.push(`${at}: in ${actualName}, not in ${expectedName}`);
    }
  }
  if (expectedKinds.has('array')) {
    if (expected.items && actual.items) {
      compare(expected.items, actual.items, `${path}[]`, expectedName, actualName, out);
    } else if (expected.items || actual.items) {
      const [full, empty] = expected.items
        ? [expectedName, actualName]
        : [actualName, expectedName];
      out.push(
        `${here}: a list with items in ${full} but empty in ${empty}, so the items cannot be ` +
          'compared: give both sides an item',
      );
    }
  }
}

function withoutNull(kinds: ReadonlySet<JsonKind>): Set<JsonKind> {
  return new Set([...kinds].filter((kind) => kind !== 'null'));
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}
