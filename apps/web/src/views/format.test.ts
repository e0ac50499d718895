import { describe, expect, it } from 'vitest';
import { avatarColour, elapsedSeconds, formatDuration, initials, litBars } from './format';

describe('formatDuration', () => {
  it.each([
    [0, '00:00'],
    [1, '00:01'],
    [59, '00:59'],
    [60, '01:00'],
    [61.9, '01:01'],
    [3599, '59:59'],
    [3600, '60:00'],
    [-5, '00:00'],
  ])('%s s → %s', (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});

describe('elapsedSeconds', () => {
  it('counts whole seconds from the start', () => {
    expect(elapsedSeconds(10_000, 10_999)).toBe(0);
    expect(elapsedSeconds(10_000, 11_000)).toBe(1);
    expect(elapsedSeconds(10_000, 9_000)).toBe(0);
  });
});

describe('litBars (5 bars; input ×10, output ×20)', () => {
  it.each([
    [0, 10, 0],
    [0.05, 10, 0],
    [0.1, 10, 1],
    [0.25, 10, 2],
    [0.5, 10, 5],
    [1, 10, 5],
    [0.05, 20, 1],
    [0.15, 20, 3],
    [0.3, 20, 5],
    [Number.NaN, 20, 0],
    [-1, 20, 0],
  ])('volume %s × %s → %s bars', (volume, scale, bars) =>
    expect(litBars(volume, scale)).toBe(bars),
  );
});

describe('initials and avatar colour', () => {
  it.each([
    ['Maya Okafor', 'MO'],
    ['maya', 'M'],
    ['  Jean-Luc  de la Cruz ', 'JC'],
    ['Élodie Brun', 'ÉB'],
    ['+1 555 0100', '?'],
    ['R2 D2', 'RD'],
    ['', '?'],
    ['— —', '?'],
  ])('%j → %s', (name, expected) => expect(initials(name)).toBe(expected));

  it('gives a name the same colour every time', () => {
    expect(avatarColour('Maya Okafor')).toBe(avatarColour('Maya Okafor'));
    expect(avatarColour('Maya Okafor')).toMatch(/^#[0-9a-f]{6}$/);
  });
});
