import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test-support/fake-platform';
import { localeCountry } from './country-lookup';
import { acceptEdit, caretAfterReformat } from './phone-text';
import { TypeAhead, isTypeAheadKey } from './type-ahead';

describe('acceptEdit: restricted characters and maximum length', () => {
  it('phone mode keeps digits, plus, parentheses, hyphen and whitespace only', () => {
    expect(acceptEdit({ text: '+1 (415) 555-0132', caret: 17 }, 'phone', 25)).toEqual({
      text: '+1 (415) 555-0132',
      caret: 17,
    });
    expect(acceptEdit({ text: 'tel: +1 (415) 555-0132 ext', caret: 26 }, 'phone', 25)).toEqual({
      text: ' +1 (415) 555-0132 ',
      caret: 19,
    });
    expect(acceptEdit({ text: '41a5', caret: 3 }, 'phone', 25)).toEqual({ text: '415', caret: 2 });
    expect(acceptEdit({ text: '4.1/5#*', caret: 7 }, 'phone', 25)?.text).toBe('415');
  });

  it('a custom pattern refuses an edit whose text does not match', () => {
    const digitsOnly = /^\d*$/;
    expect(acceptEdit({ text: '4155', caret: 4 }, digitsOnly, 25)).toEqual({
      text: '4155',
      caret: 4,
    });
    expect(acceptEdit({ text: '415-', caret: 4 }, digitsOnly, 25)).toBeNull();
    // A global pattern's state does not leak between edits.
    const global = /^\d+$/g;
    expect(acceptEdit({ text: '41', caret: 2 }, global, 25)).not.toBeNull();
    expect(acceptEdit({ text: '415', caret: 3 }, global, 25)).not.toBeNull();
  });

  it('any mode takes everything', () => {
    expect(acceptEdit({ text: '+1 415 555 0132 ext. 7', caret: 22 }, 'any', 25)?.text).toBe(
      '+1 415 555 0132 ext. 7',
    );
  });

  it('cuts text over the maximum length', () => {
    expect(acceptEdit({ text: '1'.repeat(30), caret: 30 }, 'phone', 25)).toEqual({
      text: '1'.repeat(25),
      caret: 25,
    });
  });
});

describe('caretAfterReformat', () => {
  it('keeps the caret after the same digit', () => {
    expect(caretAfterReformat('4155550132', 10, '(415) 555-0132')).toBe(14);
    expect(caretAfterReformat('4155550132', 3, '(415) 555-0132')).toBe(4);
    expect(caretAfterReformat('4155550132', 4, '(415) 555-0132')).toBe(7);
    expect(caretAfterReformat('+442079460958', 3, '+44 20 7946 0958')).toBe(3);
    expect(caretAfterReformat('4155550132', 0, '(415) 555-0132')).toBe(0);
  });
});

describe('TypeAhead: the 700 ms reset', () => {
  it('adds up keys until 700 ms pass without one', () => {
    const clock = new FakeClock();
    const typeAhead = new TypeAhead(clock);
    expect(typeAhead.type('g')).toBe('g');
    clock.tick(699);
    expect(typeAhead.type('e')).toBe('ge');
    clock.tick(699);
    expect(typeAhead.typed).toBe('ge');
    clock.tick(1);
    expect(typeAhead.typed).toBe('');
    expect(typeAhead.type('r')).toBe('r');
    typeAhead.reset();
    expect(typeAhead.typed).toBe('');
    expect(clock.pendingCount).toBe(0);
  });

  it('takes printable keys without modifiers', () => {
    const key = (
      k: string,
      mods: Partial<Record<'ctrlKey' | 'altKey' | 'metaKey', boolean>> = {},
    ) => isTypeAheadKey({ key: k, ctrlKey: false, altKey: false, metaKey: false, ...mods });
    expect(key('a')).toBe(true);
    expect(key(' ')).toBe(true);
    expect(key('ArrowDown')).toBe(false);
    expect(key('a', { ctrlKey: true })).toBe(false);
    expect(key('a', { metaKey: true })).toBe(false);
  });
});

describe('localeCountry: the default country lookup', () => {
  it('reads the region of the first language that has one', async () => {
    await expect(localeCountry({ languages: ['en-GB', 'en'] })).resolves.toBe('GB');
    await expect(localeCountry({ languages: ['de'] })).resolves.toBe('DE');
    await expect(localeCountry({ language: 'fr-CA' })).resolves.toBe('CA');
  });

  it('rejects when no language gives a country', async () => {
    await expect(localeCountry({ languages: [] })).rejects.toThrow('No country');
    await expect(localeCountry({ languages: ['not a tag!'] })).rejects.toThrow('No country');
  });
});
